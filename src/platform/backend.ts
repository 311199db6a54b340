/**
 * The seam between the platform-neutral sandbox (src/sandbox) and one
 * operating system's confinement. A backend plans a launch from a resolved
 * profile, says what it will enforce, starts the command, and gives back
 * what the launch held. Nothing above this interface knows how a backend
 * confines: it reads the enforcement report.
 *
 * The prepared plan is opaque: callers get its enforcement report and hand
 * the plan back to `start` and `release`, nothing else.
 */
import type { Readable, Writable } from 'node:stream'
import type { PathKind } from '../profile/paths.js'
import type { ResolvedPolicy } from '../profile/resolve.js'
import type { Compat, SandboxMode } from '../profile/schema.js'
import type { Enforcement, EnforcementMode } from './enforcement.js'

export interface PlanRequest {
  policy: ResolvedPolicy
  mode: SandboxMode
  /** Protections the caller named explicitly (compat default: refuse when they are missing). */
  explicit: ReadonlySet<string>
  /** Linux namespace mode: the bwrap to use instead of the well-known locations. */
  bwrap?: string | undefined
  /** The caller accepts a run whose filesystem nothing confines: a confinement that fails at launch is then reported, not fatal. */
  allowUnconfinedFilesystem?: boolean
}

/** A planned launch. Only the backend that made it can start or release it. */
export interface PreparedLaunch {
  readonly enforcement: Enforcement
}

export interface StartRequest {
  argv: string[]
  /** The command's whole environment (`NAME=value`), already filtered by the profile. */
  env: string[]
  compat: Compat
  stdin: 'pipe' | 'ignore' | 'inherit'
  stdout: 'pipe' | 'inherit' | 'ignore'
  stderr: 'pipe' | 'inherit' | 'ignore'
  input?: string | Uint8Array
  maxBuffer?: number
  /**
   * Hand the caller streams of its piped stdio (`spawn()`). Without (`run()`),
   * output is only collected, and a piped stdin gets `input` or end of file.
   */
  streams?: boolean
  /** Also keep stdout and stderr interleaved, in the order they were read (`RunEnd.all`). */
  all?: boolean
  /**
   * Each chunk of piped stdout and stderr as it is read; no stream objects
   * are made for them then, even with `streams` (which still hands out
   * stdin). Called from the read itself: it must not throw (run.ts wraps
   * the caller's listener so that it never does).
   */
  onOutput?: (stream: 'stdout' | 'stderr', chunk: Buffer) => void
  /**
   * Where the command starts, when not the planned cwd: canonical, checked by
   * the caller against the plan's enforcement (it never changes what the
   * plan enforces).
   */
  cwd?: string
  /**
   * Give the command a new pseudo-terminal of this size as stdin, stdout and
   * stderr, and as its controlling terminal (in a session of its own). The
   * stdio kinds, `input` and `all` do not apply then; the terminal's output
   * is the run's stdout, and `StartedRun.terminal` drives it.
   */
  tty?: TerminalSize
}

export interface TerminalSize {
  rows: number
  cols: number
}

/**
 * The caller's side of a command's own pseudo-terminal (`tty` runs). What
 * is written goes through the terminal's line discipline, as typed keys do:
 * with the kernel's default modes the command's input is echoed and edited
 * by line, `\x03` (^C) is SIGINT for its foreground group, `\x04` (^D) at
 * the start of a line is end of file.
 */
export interface CommandTerminal {
  /** Type `data` into the terminal (queued, never blocks); false when it was dropped (the run ended, or 1 MiB is already waiting). */
  write(data: string | Uint8Array): boolean
  /** Set the window size (TIOCSWINSZ); the kernel sends SIGWINCH to the foreground group. */
  resize(size: TerminalSize): void
  /**
   * End of input, as a user's ^D (the default VEOF character). At the start
   * of a line the reader's next read returns end of file; after a partial
   * line it hands that line over, and a second eof() is the end of file.
   * Only canonical mode (the default) gives ^D that meaning: a program that
   * put its terminal in raw mode reads the byte.
   */
  eof(): void
  /** Each chunk of output as it is read; returns the unsubscribe. Nothing holds the command back: a slow listener must buffer. */
  onData(listener: (chunk: Buffer) => void): () => void
}

/** How a started run ended: the command's own status, its output (raw bytes), and what was enforced. */
export interface RunEnd {
  exitCode: number | null
  /** Signal name as node:child_process reports it (`SIGSYS` for a seccomp kill). */
  signal: string | null
  stdout: Buffer
  stderr: Buffer
  /** stdout and stderr interleaved, when the request asked for `all`. */
  all?: Buffer
  truncated: boolean
  enforcement: Enforcement
  /** What the run's cgroup counted (absent: it had none). */
  limitEvents?: LimitEvents
}

/** What the run's limits stopped: forks refused at the process limit, processes the OOM killer ended at the memory limit. */
export interface LimitEvents {
  /** Forks and clones refused because the run had `pids` processes and threads (pids.events `max`). */
  pidsLimitHit: number
  /** Processes killed for going over `memory` (memory.events / v1 memory.oom_control `oom_kill`). */
  oomKills: number
  /** Periods in which the run was held back by `cpus` (cpu.stat `nr_throttled`). */
  cpuThrottled: number
}

export interface StartedRun {
  pid: number | undefined
  stdin: Writable | null
  stdout: Readable | null
  stderr: Readable | null
  /** The command's terminal (`tty` runs), else null. */
  terminal: CommandTerminal | null
  /** Signal the command's process group. */
  kill(signal: NodeJS.Signals): void
  /** End the run for good (timeout, abort): the command and everything it left behind. */
  stop(): void
  /**
   * What was applied, once the command started. Rejects with a SetupError
   * when confinement failed; resolves `undefined` when `stop()` came first.
   */
  started: Promise<Enforcement | undefined>
  /** The end of the run. Rejects with a SetupError when confinement failed (never for a stop of ours). */
  finished: Promise<RunEnd>
}

export interface DoctorCheck {
  mechanism: string
  ok: boolean
  /** Works, with a caveat worth acting on (a bwrap version with known bugs). */
  warning?: boolean
  detail: string
  fix?: string
}

export interface DoctorReport {
  platform: string
  /** Kernel or OS version. */
  kernel: string
  checks: DoctorCheck[]
  /** Each mode of this backend and whether it works here. */
  modes: Record<string, boolean>
  /** What `mode: 'auto'` picks here, and why. */
  auto: { mode: EnforcementMode; reason: string }
  /** Linux: whether runs get a cgroup of their own here, in which version, with which controllers (or why not). */
  cgroups?: { usable: boolean; version?: 'v1' | 'v2' | 'hybrid'; controllers: string[]; reason?: string; fix?: string }
  /** Linux: why namespace mode is unavailable (absent when it works). */
  namespaces?: { cause: string; reason: string; fix: string }
}

export interface PlatformBackend {
  readonly platform: NodeJS.Platform
  /** What a launch would enforce here, without creating anything. */
  report(req: PlanRequest): Enforcement
  /** Plan one launch; throws typed errors before anything runs. What it holds is given back by `release`. */
  prepare(req: PlanRequest): PreparedLaunch
  start(prepared: PreparedLaunch, req: StartRequest): StartedRun
  /** Give back what a launch held, once its command has ended (or never started). */
  release(prepared: PreparedLaunch): void
  /** Give back what no launch holds any more (a sandbox was closed). */
  releaseIdle(): void
  /** What this host can enforce, mechanism by mechanism, with the fix for what it cannot. */
  doctor(): DoctorReport
  /** Faster reads of the caller's own state, where this backend has them (Linux); absent: the callers' Node reads. */
  readonly hostFacts?: HostFacts
}

/** One read of the process environment (HostFacts.environment). */
export interface EnvironmentRead {
  readonly key: string
  variables(): Record<string, string>
}

/**
 * Reads that the layers above repeat on every launch and that Node makes
 * dear (platform/linux/host-facts.ts). Each answers exactly what the Node
 * read it stands for would, or declines.
 */
export interface HostFacts {
  /**
   * The process environment read once: `key`, a string equal for two reads
   * exactly when the environment was, and `variables()`, the environment of
   * that same read as process.env shows it — so a sandbox made from it is
   * the one the key names, even if a SHARE_ENV worker changes the
   * environment in between. Undefined when this cannot be told (a worker
   * thread, whose process.env is its own copy).
   */
  environment(): EnvironmentRead | undefined
  /** lstat(2) of each path, in order, as profile/paths.ts lstatOrNull reads it. */
  pathKinds(paths: readonly string[]): PathKind[]
}
