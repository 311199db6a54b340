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
import { applyPatch, type ApplyPatchOptions, type PatchResult } from './apply-patch.js'
import { readPatchInvocation } from './invocation.js'

/**
 * For any tool that runs a command (the shell tool, exec_command): the
 * PatchResult when `argv` is an apply_patch invocation — applied through
 * applyPatch(), relative to `cwd` and its `cd DIR` — else undefined (run
 * it as a command).
 */
export async function patchCommand(orchestrator: Orchestrator, argv: readonly string[], options: Omit<ApplyPatchOptions, 'environment'> = {}): Promise<PatchResult | undefined> {
  const inv = readPatchInvocation(argv)
  if (!inv) return undefined
  if (inv.kind === 'invalid') return { ok: false, status: 'invalid', text: `apply_patch: nothing was written: ${inv.reason}` }
  const cwd = resolve(orchestrator.workspace().cwd, options.cwd ?? '.', inv.cwd ?? '.')
  return applyPatch(orchestrator, inv.patch, { ...options, cwd })
}

export async function execPatch(orchestrator: Orchestrator, req: ExecRequestParsed): Promise<(ExecOutcome & { output: PatchResult }) | undefined> {
  const r = await patchCommand(orchestrator, req.command, { ...(req.cwd ? { cwd: req.cwd } : {}), ...(req.signal ? { signal: req.signal } : {}), ...(req.timeout ? { timeout: req.timeout } : {}) })
  if (!r) return undefined
  if (r.outcome) return { ...r.outcome, output: r }
  return nothingRan(req, resolve(orchestrator.workspace().cwd, req.cwd ?? '.'), r.text, r)
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
