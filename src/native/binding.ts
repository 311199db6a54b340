/**
 * The shape of the N-API addon (native/binding.cc): types only. A real
 * module, not a hand-written .d.ts, so that tsc emits it into dist and the
 * declarations cordon ships resolve for consumers (`hardenProcess()` and
 * the probe types included).
 */
export interface NativeProbe {
  landlockAbi: number | null
  landlockErrno: number
  landlockErrata: number | null
  seccomp: boolean
  seccompErrno: number
  /** null unless probe(true) was asked to try a user namespace (it forks). */
  userns: boolean | null
  usernsErrno: number
  usernsStep: 'fork' | 'unshare' | 'mount' | null
  maxUserNamespaces: number | null
  unprivilegedUsernsClone: number | null
  apparmorRestrictUserns: number | null
  noNewPrivs: boolean
  kernel: string
  machine: string
}

export interface NativeHardening {
  dumpableOff: boolean
  coreZero: boolean
  scrubbed: number
}

export interface NativeSeccompRule {
  syscall: string
  /** notify: SECCOMP_RET_USER_NOTIF, answered by the launcher's supervisor (the metadata filter). */
  action: 'errno' | 'kill' | 'notify'
  errno?: number
  args: { arg: number; op: 'eq' | 'ne' | 'masked_eq' | 'gt' | 'lt'; value: string; mask?: string }[]
}

/**
 * The wire protocol's constants (native/include/cordon-wire.h), as the addon
 * exports them; src/platform/linux/launch/wire.ts is the TypeScript copy.
 */
export interface NativeWire {
  /** The launcher's command-line flags. */
  arg: { zygote: string; planFd: string; statusFd: string }
  /** Descriptor numbers in a launched child and in the zygote, and the most one request carries. */
  fd: { plan: number; status: number; childCount: number; zygoteRequests: number; zygoteEvents: number; maxPerRequest: number; maxCgroups: number }
  /** Size limits: a zygote request (bytes, fields) and a plan (bytes). */
  limit: { requestBytes: number; requestFields: number; planBytes: number }
  /** Exit statuses of a launched child. */
  exit: { setup: number; cannotExecute: number; notFound: number }
  /** The first field of a zygote request, and the scope of a kill. */
  request: { launch: string; exec: string; kill: string; join: string; version: string; killGroup: string; killProcess: string }
  /** The zygote protocol the launcher speaks (2: joins ahead, unanswered). */
  zygote: { protocol: number }
  plan: { version: number }
  /** Field names of the status records, in the order the launcher writes them. */
  status: { setup: readonly string[]; error: readonly string[]; exit: readonly string[] }
}

/** One Landlock ABI's rights (native/linux/landlock-abi.c): every right the kernel knows at that ABI. */
export interface NativeLandlockAbi {
  abi: number
  /** The first Linux release with this ABI. */
  kernel: string
  /** handled_access_fs, handled_access_net, scoped and landlock_restrict_self() flags. */
  fs: number
  net: number
  scoped: number
  restrictFlags: number
  /** Bytes of struct landlock_ruleset_attr this ABI reads. */
  attrSize: number
  /** What cordon reports missing on an older kernel, or null. */
  protection: string | null
}

export interface NativeLandlockTable {
  /** The newest ABI in the table; a newer kernel is used at this one. */
  known: number
  /** ABI 1 … known, in order. */
  abis: NativeLandlockAbi[]
}

/** Windows: the OS the addon runs on (native/win32/probe.c). */
export interface NativeWin32Probe {
  /** RtlGetVersion: major.minor.build, which no compatibility shim rewrites. */
  version: string
  build: number
  /** Wine's version when ntdll is Wine's (it enforces no token, ACL or job limit), else null. */
  wine: string | null
}

export interface NativeBinding {
  /** Compile seccomp rules to a BPF program (struct sock_filter[]) with libseccomp. */
  compileSeccomp(rules: NativeSeccompRule[]): Buffer
  probe(withUserns?: boolean): NativeProbe
  hardenSelf(): NativeHardening
  /** Linux: a close-on-exec pipe, [readFd, writeFd]. */
  pipe(): [number, number]
  /** Linux: two connected close-on-exec SOCK_SEQPACKET unix sockets. */
  seqpacketPair(): [number, number]
  /** Linux: start `path --zygote` (posix_spawn): `requestFd` becomes its fd 3; `events` reads its fd 4. */
  spawnZygote(path: string, requestFd: number): { pid: number; events: number }
  /** Linux: waitpid(pid, WNOHANG) of a zygote; true once collected. */
  reap(pid: number): boolean
  /** Linux: close a descriptor the addon made. */
  close(fd: number): void
  /** Linux: a close-on-exec copy of a descriptor the addon made (F_DUPFD_CLOEXEC). */
  dup(fd: number): number
  /** An O_PATH fd for an absolute path reached without following any symlink (throws ELOOP/ENOTDIR/ENOENT otherwise). */
  openNoFollow(path: string): number
  /** Linux: one zygote request with its descriptors; the int32 reply (pid, 0 or -errno). */
  zygoteCall(fd: number, request: Buffer, fds: number[], timeoutMs: number): number
  /** A request the zygote never answers (a join ahead). */
  zygoteSend(fd: number, request: Buffer, fds: number[]): void
  /** Linux: a close-on-exec memfd holding `data`, sealed against any change, at offset 0. */
  sealedMemfd(data: Buffer): number
  /**
   * Linux: read `fd` (which the reader now owns) on Node's event loop:
   * `onData(chunk)` per read, `onData(null)` once at end of file or on an
   * error, after which the descriptor is closed.
   */
  FdReader: new (fd: number, onData: (chunk: Buffer | null) => void) => NativeFdReader
  /**
   * Linux: a new pseudo-terminal, [master (non-blocking), slave], both close-on-exec; with
   * `like` >= 0 the slave starts with that terminal's line settings and
   * window size (-1: the kernel's defaults).
   */
  openPty(like: number): [number, number]
  /** Linux: `fd`'s window size and whether this process may use it now (not a background job), or null when it is no terminal. */
  terminal(fd: number): NativeTerminal | null
  /** Linux: set a terminal's window size (TIOCSWINSZ); its foreground group gets SIGWINCH. */
  setTerminalSize(fd: number, rows: number, cols: number): void
  /**
   * Linux: relay two connected stream sockets (TCP or unix) on the addon's
   * relay thread (native/linux/relay.c) — duplicates of `clientFd` and
   * `upstreamFd`, so the caller closes its own; `toUpstream`/`toClient` are
   * sent first. Returns the read end of a pipe that carries one record
   * (bytes each way, the errno that ended the tunnel) and then ends when the
   * tunnel is over; closing it cuts the tunnel. Throws EAGAIN past the
   * tunnel bound, EMSGSIZE for a prefix over 1 MiB.
   */
  relay?(clientFd: number, upstreamFd: number, toUpstream: Buffer, toClient: Buffer): number
  /**
   * Linux: the process environment (environ(7)) as one Latin-1 string, each
   * `NAME=value` entry followed by a NUL (native/linux/host-facts.c). Equal
   * strings mean equal bytes. Only meaningful on Node's main thread (a
   * worker's process.env is a copy).
   */
  environBlock?(): string
  /**
   * Linux: lstat(2) of each path in `paths` (each followed by a NUL), as
   * one kind per path: 0 missing (ENOENT, ENOTDIR, EACCES), 1 symbolic
   * link, 2 anything else, 3 another error.
   */
  lstatKinds?(paths: string): Uint8Array
  /** Linux: the Landlock rights of each ABI. */
  landlock: NativeLandlockTable
  /** Windows: the OS version and whether this is Wine. */
  win32Probe?(): NativeWin32Probe
  /** The wire protocol's constants. */
  wire: NativeWire
  abiVersion: number
}

export interface NativeTerminal {
  rows: number
  cols: number
  /**
   * This process may set the terminal's modes and read it: it is not our
   * controlling terminal, or our process group is its foreground group (a
   * background job doing either would be stopped by SIGTTOU/SIGTTIN).
   */
  foreground: boolean
}

export interface NativeFdReader {
  /** Keep the event loop alive while the reader waits (the default). */
  ref(): void
  /** Let the process exit while the reader waits. */
  unref(): void
  /** Stop reading and close the descriptor; `onData` is not called again. */
  close(): void
  /** Stop reading until resume() (the writer blocks once the pipe is full); `onData` may be called from within it no more. */
  pause(): void
  /** Read again, what arrived meanwhile first. */
  resume(): void
}
