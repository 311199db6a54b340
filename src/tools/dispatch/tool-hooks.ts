/**
 * Hooks around every tool call (not only commands), run by dispatch:
 * - PreToolUse, before the handler: continue, rewrite the input
 *   (`updatedInput`, which the next hook and the handler see), or block
 *   with a reason (the model gets the reason; nothing runs). Fail closed:
 *   a hook that errors or times out blocks.
 * - PostToolUse, after the handler: add context, replace the output the
 *   model reads, or block it (the model is told the result was withheld).
 *   The call's side effects HAVE ALREADY HAPPENED: a PostToolUse hook
 *   cannot undo a write or a command; it only changes what the model sees.
 *   A failing PostToolUse hook is recorded and otherwise ignored.
 * Same hook kinds as the orchestrator's (in-process functions or external
 * commands, with a timeout): src/orchestrator/hooks/hooks.ts.
 */
import { runHook, type Hook } from '../../orchestrator/hooks/hooks.js'
import type { ToolName, ToolOutput } from '../types.js'

export interface ToolPreInput {
  readonly event: 'PreToolUse'
  readonly tool: ToolName
  readonly callId: string
  readonly input: unknown
}
export interface ToolPreResult {
  readonly decision?: 'continue' | 'block'
  readonly reason?: string
  /** The input the handler gets instead (a function tool: the arguments object). */
  readonly updatedInput?: unknown
}
export interface ToolPostInput {
  readonly event: 'PostToolUse'
  readonly tool: ToolName
  readonly callId: string
  readonly input: unknown
  readonly output: ToolOutput
}
export interface ToolPostResult {
  readonly additionalContext?: string
  /** Text the model reads instead of the output. */
  readonly replaceOutput?: string
  /** Withhold the output from the model (the side effect has already happened). */
  readonly decision?: 'block'
  readonly reason?: string
}

export interface ToolHooks {
  readonly preToolUse?: readonly Hook<ToolPreInput, ToolPreResult>[]
  readonly postToolUse?: readonly Hook<ToolPostInput, ToolPostResult>[]
}

export type PreVerdict = { readonly kind: 'continue'; readonly input: unknown } | { readonly kind: 'blocked'; readonly reason: string }

export async function runToolPre(hooks: ToolHooks['preToolUse'], base: Omit<ToolPreInput, 'event'>, timeoutMs: number, signal: AbortSignal, errors: string[]): Promise<PreVerdict> {
  let input = base.input
  for (const hook of hooks ?? []) {
    const run = await runHook<ToolPreInput, ToolPreResult>(hook, { event: 'PreToolUse', ...base, input }, timeoutMs, signal)
    if (run.error) {
      errors.push(`PreToolUse: ${run.error}`)
      return { kind: 'blocked', reason: `PreToolUse hook failed (${run.error})` }
    }
    if (run.output?.decision === 'block') return { kind: 'blocked', reason: run.output.reason ?? 'blocked by a PreToolUse hook' }
    if (run.output && 'updatedInput' in run.output && run.output.updatedInput !== undefined) input = run.output.updatedInput
  }
  return { kind: 'continue', input }
}

export interface PostVerdict {
  readonly output: ToolOutput
  readonly context: string[]
  readonly replaced: boolean
}

export async function runToolPost(hooks: ToolHooks['postToolUse'], base: Omit<ToolPostInput, 'event'>, timeoutMs: number, signal: AbortSignal, errors: string[]): Promise<PostVerdict> {
  let output = base.output
  let replaced = false
  const context: string[] = []
  for (const hook of hooks ?? []) {
    const run = await runHook<ToolPostInput, ToolPostResult>(hook, { event: 'PostToolUse', ...base, output }, timeoutMs, signal)
    if (run.error) {
      errors.push(`PostToolUse: ${run.error}`)
      continue
    }
    const out = run.output
    if (out?.additionalContext) context.push(out.additionalContext)
    if (out?.decision === 'block') {
      // The call already ran: only what the model reads changes.
      output = { kind: 'text', text: `the result of this call was withheld by a PostToolUse hook${out.reason ? `: ${out.reason}` : ''} (the call itself already ran)`, success: false }
      replaced = true
      break
    }
    if (out?.replaceOutput !== undefined) {
      output = { kind: 'text', text: out.replaceOutput, success: output.kind === 'text' ? output.success : true }
      replaced = true
    }
  }
  return { output, context, replaced }
}
