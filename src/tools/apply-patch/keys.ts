/**
 * apply_patch's session-cache keys: one per (environment, path) the patch
 * writes or removes — a move names its source and its target — at the
 * level the attempt runs at (the profile's sandbox, or the exact
 * widening). An approval "for the session" caches every key of the patch;
 * a later patch skips asking only when each of its keys is cached, so
 * approving edits to `a.txt` never approves an edit to `b.txt`, nor the
 * same edit with a wider sandbox.
 *
 * Unlike a command's key (command-key.ts), a path key does not hold the
 * patch's content: the approval is of editing that file in this session,
 * as the "(environment, path) per touched path" asks.
 */
import type { Level } from '../../orchestrator/approval/command-key.js'

export function patchKeys(environment: string, paths: readonly string[], level: Level): string[] {
  const at = level === 'sandbox' ? 'sandbox' : `widened:${level.widening}`
  return [...new Set(paths)].map((p) => JSON.stringify(['apply_patch', environment, p, at]))
}
