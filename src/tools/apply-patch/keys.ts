/**
 * apply_patch's session-cache keys: one per (environment, path, what is
 * done to it) the patch touches — `write` (an add, an update, the target
 * of a move) or `remove` (a delete, the source of a move) — at the level
 * the attempt runs at (the profile's sandbox, or the exact widening). An
 * approval "for the session" caches every key of the patch; a later patch
 * skips asking only when each of its keys is cached, so approving edits to
 * `a.txt` never approves an edit to `b.txt`, nor deleting `a.txt` or
 * moving it away, nor the same edit with a wider sandbox.
 *
 * Unlike a command's key (command-key.ts), a path key does not hold the
 * patch's content: the approval is of editing that file in this session,
 * as the "(environment, path) per touched path" asks.
 */
import type { Level } from '../../orchestrator/approval/command-key.js'
import type { PatchPlan } from './verify.js'

export interface Touch {
  readonly path: string
  readonly op: 'write' | 'remove'
}

/** What a plan does to each path, in patch order: a move removes its source and writes its target. */
export function touchesOf(plan: PatchPlan): Touch[] {
  return plan.changes.flatMap((c): Touch[] => {
    if (c.kind === 'delete') return [{ path: c.resolved, op: 'remove' }]
    if (c.moveTo) return [{ path: c.resolved, op: 'remove' }, { path: c.moveTo.resolved, op: 'write' }]
    return [{ path: c.resolved, op: 'write' }]
  })
}

export function patchKeys(environment: string, touches: readonly Touch[], level: Level): string[] {
  const at = level === 'sandbox' ? 'sandbox' : `widened:${level.widening}`
  return [...new Set(touches.map((t) => JSON.stringify(['apply_patch', environment, t.path, t.op, at])))]
}
