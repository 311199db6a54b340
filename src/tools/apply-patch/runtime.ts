/**
 * The apply_patch runtime (runtime.ts's ToolRuntime): a verified patch
 * plan, driven by the orchestrator like any command — the exec policy
 * decides `apply_patch <paths…>`, the approver sees the diff of every
 * file and approves path by path, write or removal (keys.ts), and each attempt runs the
 * applier inside the sandbox the orchestrator made for it
 * (run-applier.ts). A wider retry after a denial runs only the steps the
 * first attempt did not apply; the report always says which were.
 */
import type { AttemptContext, AttemptSandbox, RuntimeAttempt, RuntimeDescription, ToolRuntime } from '../../orchestrator/runtime.js'
import type { ApplierLine } from './applier.js'
import { patchKeys, touchesOf } from './keys.js'
import { APPLIER_TIMEOUT_MS, denialsOf, runApplier } from './run-applier.js'
import { reportOf, type PatchReport, type PlannedStep } from './steps.js'
import type { PatchPlan } from './verify.js'

export interface PatchRequest {
  readonly plan: PatchPlan
  readonly steps: readonly PlannedStep[]
  /** Whose files: `local` for this machine (the key of each path holds it). */
  readonly environment: string
  /** Write roots the patch needs beyond the profile's (asked as an escalation). */
  readonly additionalWrite: readonly string[]
  readonly timeout?: number
  /** The applier's lines so far, numbered over `steps`: a retry starts after the applied ones. */
  readonly progress: { lines: ApplierLine[] }
}

export const applyPatchRuntime: ToolRuntime<PatchRequest, PatchReport> = {
  name: 'apply_patch',
  describe(req: PatchRequest): RuntimeDescription {
    const { plan, environment } = req
    const files = plan.changes.map((c) => ({ kind: c.kind, path: c.resolved, ...(c.moveTo ? { moveTo: c.moveTo.resolved } : {}), diff: c.diff }))
    return {
      command: ['apply_patch', ...plan.paths],
      cwd: plan.cwd,
      summary: `apply_patch: ${plan.changes.length} file${plan.changes.length === 1 ? '' : 's'}`,
      ...(req.additionalWrite.length ? { additionalWrite: req.additionalWrite } : {}),
      // The bound runApplier() applies, named so a timed-out report says how long it was.
      timeout: req.timeout || APPLIER_TIMEOUT_MS,
      approval: {
        promptClass: 'patch',
        keys: (_facts, level) => patchKeys(environment, touchesOf(plan), level),
        shown: { patch: { environment, paths: plan.paths, files } },
      },
    }
  },
  async attempt(req: PatchRequest, handle: AttemptSandbox, ctx: AttemptContext): Promise<RuntimeAttempt<PatchReport>> {
    const done = req.progress.lines.filter((l) => l.status === 'applied')
    const rest = req.steps.slice(done.length).map((s) => s.step)
    const run = await runApplier(handle.sandbox, rest, { signal: ctx.signal, timeout: req.timeout || APPLIER_TIMEOUT_MS })
    req.progress.lines = [...done, ...run.lines.map((l) => ({ ...l, step: l.step + done.length }))]
    return { output: reportOf(req.plan, req.steps, req.progress.lines), result: run.result, denials: denialsOf(run.lines, rest, run.result) }
  },
}
