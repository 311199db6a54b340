/**
 * The result of a sandboxed run: execa-like fields plus the enforcement report.
 *
 * Results are data, also for a run that was stopped: a timeout resolves
 * with `timedOut: true`, an abort with `isCanceled: true` (execa's flag),
 * whether the signal fired before the command started or while it ran.
 * Only a run that could not be set up rejects (SetupError, PolicyError,
 * UnsupportedError).
 */
import type { Enforcement } from '../platform/enforcement.js'
import type { LimitEvents } from '../platform/backend.js'

export interface SandboxResult<Output extends string | Buffer = string> {
  command: string[]
  /** The command's exit status; null when a signal ended it, or when it never started (canceled first). */
  exitCode: number | null
  /** Signal name when the command was killed by one (`SIGSYS` for a seccomp kill). */
  signal: string | null
  stdout: Output
  stderr: Output
  /** stdout and stderr interleaved in the order cordon read them: only with `all: true`. */
  all?: Output
  /** stdout or stderr went past `maxBuffer` and was cut there (the command itself ran on). */
  outputTruncated: boolean
  /** The `timeout` ran out and cordon stopped the command (and everything it left behind). */
  timedOut: boolean
  /** The `signal` aborted the run: the command was stopped, or never started. Never together with `timedOut`. */
  isCanceled: boolean
  durationMs: number
  enforcement: Enforcement
  /**
   * What the run's resource limits stopped (Linux, a run with its own
   * cgroup): `pidsLimitHit` forks refused at the process limit, `oomKills`
   * processes the kernel killed for going over the memory limit.
   */
  limitEvents?: LimitEvents
}
