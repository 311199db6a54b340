/**
 * What exec_command and write_stdin hand back to the model: one text, the
 * same shape for both (as Codex's unified exec has it) — how long the call
 * waited, whether the process is still running (and its session id) or how
 * it ended, how much output was left out, then the output.
 */
import type { DeferredPost } from '../../orchestrator/runtime.js'
import type { SandboxResult } from '../../sandbox/result.js'
import type { ModelOutput } from './truncate.js'

export interface Report {
  readonly waitedMs: number
  /** Present while the process runs. */
  readonly sessionId?: number
  /** Present once it ended. */
  readonly end?: SandboxResult
  readonly output: ModelOutput
  /** PostToolUse of the call that started the process, on its final result. */
  readonly post?: DeferredPost
  /** Lines for the model (a clamped window, a pruned session). */
  readonly notes?: readonly string[]
  /** What the dispatcher's PostToolUse hooks of the call added. */
  readonly context?: readonly string[]
}

function endLine(r: SandboxResult): string {
  if (r.timedOut) return 'Process timed out and was killed (with everything it started)'
  if (r.isCanceled) return 'Process was stopped (with everything it started)'
  if (r.signal) return `Process was killed by ${r.signal}`
  return `Process exited with code ${r.exitCode ?? '?'}`
}

export function reportText(r: Report): string {
  const lines = [`Wall time: ${(r.waitedMs / 1000).toFixed(3)} seconds`]
  lines.push(r.end ? endLine(r.end) : `Process running with session ID ${r.sessionId ?? '?'}`)
  if (r.output.omitted > 0) lines.push(`Output: ${r.output.total} bytes, ${r.output.omitted} omitted`)
  for (const n of r.notes ?? []) lines.push(`Note: ${n}`)
  // Every line of the host's (notes, hooks' context) comes before `Output:`: after it is only
  // what the command printed, so a command printing `Context: …` cannot pass for a hook.
  for (const c of [...(r.post?.context ?? []), ...(r.context ?? [])]) lines.push(`Context: ${c}`)
  lines.push('Output:', r.output.text)
  return lines.join('\n')
}

/** A call succeeded when the process still runs or ended with status 0. */
export function succeeded(r: Report): boolean {
  return r.end === undefined || (r.end.exitCode === 0 && !r.end.timedOut && !r.end.isCanceled)
}
