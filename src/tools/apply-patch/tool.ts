/**
 * The apply_patch tool: both faces in one object (types.ts) — the freeform
 * spec with the grammar the model writes in (grammar.ts), and the handler
 * that takes the model's raw text through applyPatch(). A patch that does
 * not parse or fit, a refusal, a denial: all are results the model reads
 * (`success: false`), never errors of the step; an abort is `aborted`.
 * The helper that writes the files runs at most APPLIER_TIMEOUT_MS (a
 * minute): a stuck one is stopped and the result says what it applied.
 */
import { ToolSetupError } from '../../errors.js'
import type { Tool, ToolContext, ToolOutput } from '../types.js'
import { applyPatch, type PatchResult } from './apply-patch.js'
import { APPLY_PATCH_DESCRIPTION, APPLY_PATCH_GRAMMAR } from './grammar.js'
import { APPLIER_TIMEOUT_MS } from './run-applier.js'

export const applyPatchTool: Tool = {
  name: { name: 'apply_patch' },
  spec: {
    kind: 'freeform',
    description: APPLY_PATCH_DESCRIPTION,
    format: { type: 'grammar', syntax: 'lark', definition: APPLY_PATCH_GRAMMAR },
  },
  exposure: 'direct',
  // Two patches to the same file must not interleave their verification and their writes.
  parallel: false,
  keywords: ['patch', 'edit', 'diff', 'file'],
  handler: async (input: unknown, ctx: ToolContext): Promise<ToolOutput> => {
    if (typeof input !== 'string') return { kind: 'text', text: 'apply_patch: the input must be the patch text', success: false }
    // Bounded: a helper stuck on a file would otherwise hold the dispatcher's write lock for good (red team F4).
    return patchToolOutput(await applyPatch(ctx.orchestrator, input, { signal: ctx.signal, timeout: APPLIER_TIMEOUT_MS }), ctx)
  },
}

/**
 * A patch's result as the model reads it (also for a patch that came as a
 * shell command). Only a sandbox that could not be set up at all is an
 * error of the step (ToolSetupError), as for the shell tool — unless an
 * earlier attempt already changed files (a wider retry that could not be
 * set up): then a result, which says what was applied.
 */
export function patchToolOutput(r: PatchResult, ctx: Pick<ToolContext, 'tool'>): ToolOutput {
  if (r.status === 'error' && !r.report?.files.some((f) => f.status === 'applied' || f.status === 'partial')) {
    const o = r.outcome
    const err = o?.attempts[o.attempts.length - 1]?.error ?? { name: 'Error', code: 'E_UNKNOWN', message: o?.reason ?? 'the sandbox could not be set up' }
    throw new ToolSetupError(ctx.tool.name, err)
  }
  if (r.status === 'canceled') return { kind: 'aborted', text: r.text }
  return { kind: 'text', text: r.text, success: r.ok }
}
