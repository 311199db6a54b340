/**
 * An exec request that is an apply_patch invocation (invocation.ts) runs
 * as a patch: orchestrator.exec() hands it here before any shell is
 * considered. The outcome has exec()'s shape; a patch that does not parse
 * or fit, or that needs a root never proposed, is `forbidden` with the
 * reason (nothing ran, nothing was written) and `output` holds the
 * PatchResult either way.
 */
import { resolve } from 'node:path'
import type { Orchestrator } from '../../orchestrator/orchestrator.js'
import type { ExecOutcome } from '../../orchestrator/outcome.js'
import type { ExecRequestParsed } from '../../orchestrator/options.js'
import { applyPatch, type PatchResult } from './apply-patch.js'
import type { PatchInvocation } from './invocation.js'

export async function execPatch(orchestrator: Orchestrator, req: ExecRequestParsed, inv: PatchInvocation): Promise<ExecOutcome & { output: PatchResult }> {
  const cwd = resolve(orchestrator.workspace().cwd, req.cwd ?? '.', inv.kind === 'patch' ? (inv.cwd ?? '.') : '.')
  if (inv.kind === 'invalid') return nothingRan(req, cwd, `apply_patch: nothing was written: ${inv.reason}`, { ok: false, status: 'invalid', text: `apply_patch: nothing was written: ${inv.reason}` })
  const r = await applyPatch(orchestrator, inv.patch, { cwd, ...(req.signal ? { signal: req.signal } : {}), ...(req.timeout ? { timeout: req.timeout } : {}) })
  if (r.outcome) return { ...r.outcome, output: r }
  return nothingRan(req, cwd, r.text, r)
}

function nothingRan(req: ExecRequestParsed, cwd: string, reason: string, output: PatchResult): ExecOutcome & { output: PatchResult } {
  return {
    status: 'forbidden',
    isCanceled: false,
    command: req.command,
    cwd,
    reason,
    attempts: [],
    resultReplaced: false,
    denials: [],
    amendments: [],
    context: [],
    hookErrors: [],
    notes: [],
    output,
  }
}
