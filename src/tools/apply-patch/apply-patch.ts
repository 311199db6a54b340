/**
 * applyPatch(orchestrator, text): the whole apply_patch path, for the
 * tool handler and for an `apply_patch` reached through a shell command
 * (invocation.ts). Parse (parser.ts) → verify against the files
 * (verify.ts) → the write roots it needs (permissions.ts) →
 * orchestrator.run(applyPatchRuntime) — policy, approval with the diff,
 * the sandboxed applier, at most one wider retry. Problems with the patch
 * are results (status `invalid`, `refused`), never exceptions: the model
 * reads them and corrects the patch.
 */
import type { Orchestrator } from '../../orchestrator/orchestrator.js'
import type { ExecStatus } from '../../orchestrator/outcome.js'
import type { RunOutcome } from '../../orchestrator/runtime.js'
import { PatchParseError, PatchVerifyError } from './errors.js'
import { parsePatch } from './parser.js'
import { unreadableIn, writeNeeds } from './permissions.js'
import { applyPatchRuntime } from './runtime.js'
import { reportText, stepsOf, type PatchReport } from './steps.js'
import { verifyPatch, type PatchPlan } from './verify.js'

export interface ApplyPatchOptions {
  /** Whose files (part of every approval key). Default `local`. */
  readonly environment?: string
  /** Where relative paths resolve. Default: the orchestrator's workspace. */
  readonly cwd?: string
  readonly signal?: AbortSignal
  /** Bound on the applier's run (ms). */
  readonly timeout?: number
}

export interface PatchResult {
  /** Every file was applied. */
  readonly ok: boolean
  /**
   * `invalid`: the patch does not parse or does not fit the files;
   * `refused`: it needs a write root that is never proposed; otherwise the
   * orchestrator's status (`completed`: the applier ran — see `report`).
   * Nothing was written unless the status is `completed` or `timed_out`,
   * or `canceled` with a report.
   */
  readonly status: 'invalid' | 'refused' | ExecStatus
  /** For the model: what happened, file by file. */
  readonly text: string
  readonly error?: PatchParseError | PatchVerifyError
  readonly plan?: PatchPlan
  readonly report?: PatchReport
  readonly outcome?: RunOutcome<PatchReport>
}

const NOTHING = 'apply_patch: nothing was written'

export async function applyPatch(orchestrator: Orchestrator, text: string, options: ApplyPatchOptions = {}): Promise<PatchResult> {
  const ws = orchestrator.workspace()
  let plan: PatchPlan
  try {
    plan = await verifyPatch(parsePatch(text), { cwd: options.cwd ?? ws.cwd, unreadable: unreadableIn(ws) })
  } catch (e) {
    if (!(e instanceof PatchParseError || e instanceof PatchVerifyError)) throw e
    return { ok: false, status: 'invalid', text: `${NOTHING}: ${e.message}`, error: e }
  }
  const needs = writeNeeds(plan, ws)
  if ('refused' in needs) return { ok: false, status: 'refused', text: `${NOTHING}: ${needs.refused}`, plan }
  const request = {
    plan,
    steps: stepsOf(plan),
    environment: options.environment ?? 'local',
    additionalWrite: needs.roots,
    ...(options.timeout ? { timeout: options.timeout } : {}),
    progress: { lines: [] },
  }
  const outcome = await orchestrator.run(applyPatchRuntime, request, options.signal ? { signal: options.signal } : {})
  const report = outcome.output
  const base = { status: outcome.status, plan, outcome, ...(report ? { report } : {}) }
  if (report) return { ...base, ok: report.ok, text: `${reportText(report)}${outcome.status === 'completed' ? '' : `(${outcome.status}: ${outcome.reason ?? ''})\n`}` }
  return { ...base, ok: false, text: `${NOTHING} (${outcome.status}${outcome.reason ? `: ${outcome.reason}` : ''})` }
}
