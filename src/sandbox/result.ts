/** The result of a sandboxed run: execa-like fields plus the enforcement report. */
import type { Enforcement } from '../platform/enforcement.js'

export interface SandboxResult {
  command: string[]
  exitCode: number | null
  /** Signal name when the command was killed by one (`SIGSYS` for a seccomp kill). */
  signal: string | null
  stdout: string
  stderr: string
  /** stdout or stderr went past `maxBuffer` and was cut there (the command itself ran on). */
  outputTruncated: boolean
  timedOut: boolean
  aborted: boolean
  durationMs: number
  enforcement: Enforcement
}
