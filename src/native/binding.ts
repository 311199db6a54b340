/** The shape of the N-API addon (native/binding.cc). */
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
  action: 'errno' | 'kill'
  errno?: number
  args: { arg: number; op: 'eq' | 'ne' | 'masked_eq' | 'gt' | 'lt'; value: string; mask?: string }[]
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
  /** An O_PATH fd for an absolute path reached without following any symlink (throws ELOOP/ENOTDIR/ENOENT otherwise). */
  openNoFollow(path: string): number
  /** Linux: one zygote request with its descriptors; the int32 reply (pid, 0 or -errno). */
  zygoteCall(fd: number, request: Buffer, fds: number[], timeoutMs: number): number
  /** Linux: a close-on-exec memfd holding `data`, sealed against any change, at offset 0. */
  sealedMemfd(data: Buffer): number
  /**
   * Linux: read `fd` (which the reader now owns) on Node's event loop:
   * `onData(chunk)` per read, `onData(null)` once at end of file or on an
   * error, after which the descriptor is closed.
   */
  FdReader: new (fd: number, onData: (chunk: Buffer | null) => void) => NativeFdReader
  abiVersion: number
}

export interface NativeFdReader {
  /** Keep the event loop alive while the reader waits (the default). */
  ref(): void
  /** Let the process exit while the reader waits. */
  unref(): void
  /** Stop reading and close the descriptor; `onData` is not called again. */
  close(): void
}
