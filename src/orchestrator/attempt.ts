/**
 * One attempt: a fresh sandbox with the attempt's options, one run, then
 * denial detection against that attempt's own enforcement report. A
 * sandbox that cannot be set up (SetupError, UnsupportedError) is recorded
 * as the attempt's error — it is not a denial and is never escalated.
 */
import { CordonError } from '../errors.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import type { RunOptions, SandboxOptions } from '../sandbox/options.js'
import type { SandboxResult } from '../sandbox/result.js'
import type { Enforcement } from '../platform/enforcement.js'
import type { ApprovalRecord } from './approval/approval.js'
import { detectDenials, type Denial } from './denial/denial.js'
import type { Widening } from './escalation/widen.js'

export interface AttemptRecord {
  readonly index: 1 | 2
  readonly sandbox: {
    /** The createSandbox() options this attempt ran with. */
    readonly options: SandboxOptions
    /** What was added to the profile for this attempt (absent: the profile as is). */
    readonly widening?: Widening
    /** What was enforced (from the run, or planned when the run did not start). */
    readonly enforcement?: Enforcement
  }
  /** Who let this attempt run. */
  readonly approval: ApprovalRecord
  readonly result?: SandboxResult
  readonly error?: { readonly name: string; readonly code: string; readonly message: string }
  /** Sandbox denials detected in this attempt, with evidence. */
  readonly denials: readonly Denial[]
}

export interface AttemptSpec {
  readonly index: 1 | 2
  readonly options: SandboxOptions
  readonly widening: Widening | undefined
  readonly approval: ApprovalRecord
  /** The command as decided (for denial detection). */
  readonly command: readonly string[]
  /** The directory it runs in; when it differs from the sandbox cwd the command is wrapped in `cd`. */
  readonly cwd: string
  readonly run: RunOptions
  readonly createSandbox: (options: SandboxOptions) => Sandbox
}

export async function runAttempt(spec: AttemptSpec): Promise<AttemptRecord> {
  const base = { index: spec.index, approval: spec.approval }
  const sandboxInfo = { options: spec.options, ...(spec.widening ? { widening: spec.widening } : {}) }
  let sb: Sandbox | undefined
  try {
    sb = spec.createSandbox(spec.options)
    const argv = sb.cwd === spec.cwd ? spec.command : inDirectory(spec.cwd, spec.command)
    const result = await sb.run(argv, spec.run)
    const shown = { ...result, command: [...spec.command] }
    const denials = detectDenials({ result: shown, cwd: spec.cwd, command: spec.command })
    return { ...base, sandbox: { ...sandboxInfo, enforcement: result.enforcement }, result: shown, denials }
  } catch (e) {
    const error = e instanceof CordonError ? { name: e.name, code: e.code, message: e.message } : { name: 'Error', code: 'E_UNKNOWN', message: String((e as Error)?.message ?? e) }
    const enforcement = tryReport(sb)
    return { ...base, sandbox: { ...sandboxInfo, ...(enforcement ? { enforcement } : {}) }, error, denials: [] }
  } finally {
    sb?.close()
  }
}

/** Run argv in `dir` inside the same sandbox: `sh -c 'cd -- "$1" && shift && exec "$@"'`. */
function inDirectory(dir: string, argv: readonly string[]): string[] {
  return ['/bin/sh', '-c', 'cd -- "$1" && shift && exec "$@"', 'cordon-cd', dir, ...argv]
}

function tryReport(sb: Sandbox | undefined): Enforcement | undefined {
  try {
    return sb?.report()
  } catch {
    return undefined
  }
}
