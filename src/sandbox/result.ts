/**
 * The result of a sandboxed run: execa-like fields plus the enforcement report.
 * `Output` is `Buffer` for a run with `encoding: 'buffer'`, `string` otherwise.
 */
import type { Enforcement } from '../platform/enforcement.js'

export interface SandboxResult<Output extends string | Buffer = string> {
  command: string[]
  exitCode: number | null
  /** Signal name when the command was killed by one (`SIGSYS` for a seccomp kill). */
  signal: string | null
  stdout: Output
  stderr: Output
  /** stdout and stderr interleaved in the order cordon read them: only with `all: true`. */
  all?: Output
  /** stdout or stderr went past `maxBuffer` and was cut there (the command itself ran on). */
  outputTruncated: boolean
  timedOut: boolean
  aborted: boolean
  durationMs: number
  enforcement: Enforcement
}
