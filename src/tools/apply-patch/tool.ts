/**
 * The apply_patch tool: both faces in one object (types.ts) — the freeform
 * spec with the grammar the model writes in (grammar.ts), and the handler
 * that takes the model's raw text through applyPatch(). A patch that does
 * not parse or fit, a refusal, a denial: all are results the model reads
 * (`success: false`), never errors of the step; an abort is `aborted`.
 */
import type { Tool, ToolContext, ToolOutput } from '../types.js'
import { applyPatch } from './apply-patch.js'
import { APPLY_PATCH_DESCRIPTION, APPLY_PATCH_GRAMMAR } from './grammar.js'

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
    const r = await applyPatch(ctx.orchestrator, input, { signal: ctx.signal })
    if (r.status === 'canceled') return { kind: 'aborted', text: r.text }
    return { kind: 'text', text: r.text, success: r.ok }
  },
}
