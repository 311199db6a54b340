/**
 * One attempt: a sandbox with the attempt's options (a new one, or one
 * kept for the same options: sandbox-pool.ts), the runtime's attempt in it
 * (runtime.ts), then denial detection against that attempt's own
 * enforcement report. A
 * sandbox that cannot be set up (SetupError, UnsupportedError) is recorded
 * as the attempt's error — it is not a denial and is never escalated.
 */
import { AbortError, CordonError } from '../errors.js'
import type { SandboxOptions } from '../sandbox/options.js'
import type { SandboxResult } from '../sandbox/result.js'
import type { Enforcement } from '../platform/enforcement.js'
import type { ApprovalRecord } from './approval/approval.js'
import { detectDenials, type Denial } from './denial/denial.js'
import type { Widening } from './escalation/widen.js'
import type { OutputKeep, OutputListener, OutputTruncation } from './output.js'
import type { AttemptContext, AttemptSandbox, RuntimeAttempt } from './runtime.js'
import type { Lease } from './sandbox-pool.js'

/** A run's result as the orchestrator reports it: stdout/stderr within the request's maxBuffer, and what was cut. */
export interface AttemptResult extends SandboxResult {
  /** Present when output went past maxBuffer: per stream, how many bytes were dropped and where. */
  readonly truncation?: OutputTruncation
}

/** How an attempt's output is streamed and kept (the request's onOutput, maxBuffer, keep). */
export interface OutputSpec {
  readonly listener: OutputListener | undefined
  readonly maxBuffer: number
  readonly keep: OutputKeep
}

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
  readonly result?: AttemptResult
  readonly error?: { readonly name: string; readonly code: string; readonly message: string }
  /** Sandbox denials detected in this attempt, with evidence. */
  readonly denials: readonly Denial[]
}

export interface AttemptSpec<Out = unknown> {
  readonly index: 1 | 2
  readonly options: SandboxOptions
  readonly widening: Widening | undefined
  readonly approval: ApprovalRecord
  /** The command as decided (for denial detection and the runtime). */
  readonly command: readonly string[]
  /** The directory it runs in. */
  readonly cwd: string
  readonly signal: AbortSignal
  readonly output: OutputSpec
  /** The outcome's notes (an onOutput callback that failed is noted here). */
  readonly notes: string[]
  /** A sandbox for these options, let go of when the attempt (or the process it retained) is done. */
  readonly lease: (options: SandboxOptions) => Lease
  /** The runtime's attempt (runtime.ts), bound to its request. */
  readonly execute: (sandbox: AttemptSandbox, context: AttemptContext) => Promise<RuntimeAttempt<Out>>
}

/** An attempt's record, and the runtime's output when it ran. */
export interface Ran<Out = unknown> {
  readonly record: AttemptRecord
  readonly output?: Out
  /** The final result of a process that outlived the attempt (runtime.ts `RuntimeAttempt.final`). */
  readonly final?: Promise<AttemptResult>
}

export async function runAttempt<Out>(spec: AttemptSpec<Out>): Promise<Ran<Out>> {
  const base = { index: spec.index, approval: spec.approval }
  const sandboxInfo = { options: spec.options, ...(spec.widening ? { widening: spec.widening } : {}) }
  let lease: Lease | undefined
  let retained = false
  try {
    lease = spec.lease(spec.options)
    const held = lease
    const handle: AttemptSandbox = {
      index: spec.index,
      sandbox: held.sandbox,
      options: spec.options,
      ...(spec.widening ? { widening: spec.widening } : {}),
      retain: () => {
        retained = true
        return held.release // once only: a lease's release does nothing the second time
      },
    }
    const context: AttemptContext = { signal: spec.signal, output: spec.output, cwd: spec.cwd, command: spec.command, notes: spec.notes }
    const ran = await spec.execute(handle, context)
    const shown = { ...ran.result, command: [...spec.command] }
    const denials = ran.denials ? [...ran.denials] : detectDenials({ result: shown, cwd: spec.cwd, command: spec.command })
    return { record: { ...base, sandbox: { ...sandboxInfo, enforcement: ran.result.enforcement }, result: shown, denials }, output: ran.output, ...(ran.final ? { final: ran.final } : {}) }
  } catch (e) {
    if (e instanceof AbortError) throw e
    const error = e instanceof CordonError ? { name: e.name, code: e.code, message: e.message } : { name: 'Error', code: 'E_UNKNOWN', message: String((e as Error)?.message ?? e) }
    const enforcement = tryReport(lease?.sandbox)
    return { record: { ...base, sandbox: { ...sandboxInfo, ...(enforcement ? { enforcement } : {}) }, error, denials: [] } }
  } finally {
    if (!retained) lease?.release()
  }
}

function tryReport(sb: Lease['sandbox'] | undefined): Enforcement | undefined {
  try {
    return sb?.report()
  } catch {
    return undefined
  }
}
