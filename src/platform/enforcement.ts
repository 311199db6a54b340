/**
 * The enforcement report: what a sandbox enforces (or enforced) here, and
 * what it could not. Status `full` means every requested protection is in
 * force; `partial` lists the rest in `missing`; `none` means no confinement.
 *
 * Every backend fills the common fields the same way; what only one
 * operating system has (Landlock's ABI, seccomp) lives in `platform`, a
 * union discriminated by `os`. Layers above the backends (the
 * orchestrator's denial attribution and escalation) read facts from here —
 * `filesystem.privateDirs`, `widening` — and never from one backend's plan.
 */
/** One host the command asked the proxy for, with the decision and who made it. */
export interface ProxyRequestRecord {
  host: string
  port: number
  /** `http` (plain, absolute URI), `https` (CONNECT), `socks5_tcp`. */
  protocol: 'http' | 'https' | 'socks5_tcp'
  decision: 'allowed' | 'denied'
  /** `profile`, `rules` (a network_rule), `session` (an earlier answer), `user` (asked now), `default` (not in the allowlist), `proxy` (an address or header check). */
  source: string
  reason: string
  /** The address connected to, when allowed. */
  address?: string
}

export interface ProxyReport {
  /** The loopback port the proxy listens on (both HTTP and SOCKS5). */
  port: number
  allow: string[]
  deny: string[]
  /** In a result: what this run asked for (runs of one sandbox that overlap in time see each other's requests). */
  requests: ProxyRequestRecord[]
}

/** Linux: `landlock`, `namespaces`; macOS: `seatbelt` (docs/macos.md); Windows: `restricted-token` (docs/windows.md). */
export type EnforcementMode = 'landlock' | 'namespaces' | 'seatbelt' | 'restricted-token' | 'none'

export interface MissingProtection {
  /** Stable id, e.g. `protected-paths`, `signal-scope`, `landlock`. */
  protection: string
  reason: string
  /** True when the caller asked for it explicitly (compat default: refuse). */
  explicit: boolean
  fix?: string
}

/** Linux: what the launcher applied (or will apply) in either mode. */
export interface LinuxEnforcement {
  os: 'linux'
  /** The Landlock ABI in force, null when Landlock is not applied. */
  landlockAbi: number | null
  seccomp: boolean
  noNewPrivs: boolean
  capabilitiesDropped: boolean
  /**
   * After launch, Landlock mode only: who answers the file-metadata calls
   * Landlock has no right for (chmod, chown, utimes, xattrs, attribute
   * flags). `supervised`: the launcher's supervisor, which performs them
   * beneath a write root and refuses them elsewhere; `refuse-all`: no
   * seccomp listener could be installed (cordon inside cordon, or a
   * container manager holds one), so they are refused everywhere, write
   * roots included — less function, no gap. Absent in namespace mode,
   * where read-only mounts refuse them in the kernel.
   */
  metadataCalls?: 'supervised' | 'refuse-all'
}

/** macOS: the Seatbelt profile the launcher applied (or will apply) with sandbox_init. */
export interface DarwinEnforcement {
  os: 'darwin'
  /** The profile is (to be) in force. */
  seatbelt: boolean
  /** The message every denial of this run carries in the system log (`cordon-<hex>`), null without a profile. */
  denialTag: string | null
  /** Size of the generated SBPL profile. */
  profileBytes: number
  /** How this backend has been verified so far. */
  verified: 'not yet run on macOS'
}


/** Windows: what the launcher applies (docs/windows.md). */
export interface WindowsEnforcement {
  os: 'win32'
  /** CreateRestrictedToken(WRITE_RESTRICTED) with the sandbox SID as the one restricting SID. */
  token: 'write-restricted'
  integrity: 'low' | 'medium'
  /** The per-sandbox capability SID the ACLs of this launch name. */
  capabilitySid: string
  job: { killOnClose: true; activeProcesses: number | null; memoryBytes: number | null; cpuSeconds: number | null }
  /** Process mitigation policies set at creation (PROC_THREAD_ATTRIBUTE_MITIGATION_POLICY). */
  mitigations: boolean
  /** How this was verified (the backend has not run on real Windows yet). */
  verified: string
  /** Once started: the launcher's pid, and the handle values of its plan/stop and status pipes, which the command does not inherit. */
  launcher?: { pid: number; pipes: number[] }
}

/** One member per backend. */
export type PlatformEnforcement = LinuxEnforcement | DarwinEnforcement | WindowsEnforcement

/** What a wider attempt may add in this mode, as the backend that planned it sees it. */
export interface WideningLimits {
  /** Paths a write root must not cover in this mode (the command could replace them before the next launch). */
  writeExcluded: string[]
  /** The mode a widening that covers one of `writeExcluded` must run in instead (absent: nothing to switch to). */
  modeForExcluded?: 'landlock' | 'namespaces'
}

/**
 * The run's own cgroup and the limits in force in it (Linux, cgroups(7)).
 * A limit that is null is not enforced — not asked for, or `reason` says why.
 */
export interface ResourceLimits {
  /** The run's cgroup: which hierarchies hold it, and how its end kills everything in it; null: none (see `reason`). */
  cgroup: { version: 'v1' | 'v2' | 'hybrid'; kill: 'cgroup.kill' | 'freezer' | 'signal' } | null
  /** Processes and threads of the whole run at once (pids.max). */
  pids: number | null
  /** Bytes of memory of the whole run (memory.max). */
  memory: number | null
  /** CPUs' worth of time (cpu.max). */
  cpus: number | null
  /** Why there is no cgroup, or a limit asked for is not in force. */
  reason?: string
}

export interface Enforcement {
  mode: EnforcementMode
  modeReason: string
  /**
   * `full`: everything asked for is in force; `partial`: see `missing`;
   * `none`: nothing confines the filesystem (or nothing applies at all) —
   * never `partial` when every file the caller can reach is reachable.
   */
  status: 'full' | 'partial' | 'none'
  /** The confinement mechanisms in force (Linux: `namespaces`, `landlock`, `seccomp`, `cgroup`). */
  mechanisms: string[]
  /**
   * `off`: no sockets; `inet`: every host over IP, no host unix socket; `on`:
   * every host and local socket; `proxy`: TCP only to cordon's proxy, which
   * applies the allowlist (`proxy` below, docs/network.md).
   */
  network: 'off' | 'inet' | 'on' | 'proxy'
  /** With network `proxy`: where the proxy listens and what it decided, one entry per host asked for. */
  proxy?: ProxyReport
  filesystem: {
    /** Something confines reads and writes (false: only the file modes of the caller's user do). */
    confined: boolean
    readAll: boolean
    readRoots: string[]
    writeRoots: string[]
    denyRead: string[]
    protected: string[]
    /** Directories narrowed so a denied path below them stays unreadable (Landlock mode). */
    narrowed: string[]
    /** Directories the command sees private and empty instead of the host's (namespace mode: /tmp, /var/tmp unless a write root covers them). */
    privateDirs: string[]
  }
  envDropped: string[]
  missing: MissingProtection[]
  notes: string[]
  widening: WideningLimits
  /** Resource limits of the whole run (Linux: its cgroup); absent where the backend has none. */
  limits?: ResourceLimits
  platform: PlatformEnforcement
}

/** The mechanisms that confine what the command may access: a `cgroup` limits resources and confines no access. */
export function confining(mechanisms: readonly string[]): string[] {
  return mechanisms.filter((m) => m !== 'cgroup')
}

export function statusOf(e: Pick<Enforcement, 'mechanisms' | 'filesystem' | 'missing'>): Enforcement['status'] {
  if (confining(e.mechanisms).length === 0 || !e.filesystem.confined) return 'none'
  return e.missing.length === 0 ? 'full' : 'partial'
}

/**
 * The missing entry of a run whose filesystem nothing confines. Explicit:
 * the default compat refuses it, and so does best-effort unless the caller
 * opted in by name (`allowUnconfinedFilesystem`).
 */
export function unconfinedFilesystem(why: string, fix: string): MissingProtection {
  return {
    protection: 'filesystem',
    explicit: true,
    reason: `nothing confines the filesystem (${why}): every file the caller's user can read or write is reachable, secrets included`,
    fix: `${fix}; or pass allowUnconfinedFilesystem: true (--allow-unconfined-fs) to run this way knowingly`,
  }
}
