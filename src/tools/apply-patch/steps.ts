/**
 * A verified plan as the applier's steps (applier.ts), and the applier's
 * output read back as a per-file report: for each file, applied, failed
 * (with the error), partly applied (a move whose new file was written but
 * whose old one was not removed), or not attempted because an earlier step
 * failed.
 */
import type { ApplierLine, ApplierStep } from './applier.js'
import type { FileChange, PatchPlan } from './verify.js'

export interface PlannedStep {
  readonly file: number
  readonly step: ApplierStep
}

export function stepsOf(plan: PatchPlan): PlannedStep[] {
  return plan.changes.flatMap((c, file) => fileSteps(c).map((step) => ({ file, step })))
}

function fileSteps(c: FileChange): ApplierStep[] {
  const old = { sha256: c.oldSha256 as string }
  if (c.kind === 'add') return [{ op: 'write', path: c.resolved, content: c.newText as string, expect: 'absent' }]
  if (c.kind === 'delete') return [{ op: 'remove', path: c.resolved, expect: old }]
  if (!c.moveTo) return [{ op: 'write', path: c.resolved, content: c.newText as string, expect: old }]
  return [
    { op: 'write', path: c.moveTo.resolved, content: c.newText as string, expect: 'absent', source: { path: c.resolved, ...old } },
    { op: 'remove', path: c.resolved, expect: old },
  ]
}

export type FileStatus = 'applied' | 'partial' | 'failed' | 'not-attempted'

export interface FileReport {
  readonly kind: FileChange['kind']
  readonly path: string
  readonly moveTo?: string
  readonly status: FileStatus
  /** The failed step's error (a `partial` move: the removal of the old file). */
  readonly error?: { readonly path: string; readonly code: string; readonly syscall?: string; readonly message: string }
}

export interface PatchReport {
  /** Every step applied. */
  readonly ok: boolean
  readonly files: readonly FileReport[]
}

/** Lines of applier output (stdout), tolerant of a torn last line (a killed helper). */
export function readApplierLines(stdout: string): ApplierLine[] {
  const out: ApplierLine[] = []
  for (const line of stdout.split('\n')) {
    try {
      const v = JSON.parse(line) as ApplierLine
      if (typeof v?.step === 'number' && (v.status === 'applied' || v.status === 'failed')) out.push(v)
    } catch {
      /* not a step line */
    }
  }
  return out
}

export function reportOf(plan: PatchPlan, steps: readonly PlannedStep[], lines: readonly ApplierLine[]): PatchReport {
  const byStep = new Map(lines.map((l) => [l.step, l]))
  const files = plan.changes.map((c, file): FileReport => {
    const mine = steps.map((s, i) => ({ s, line: byStep.get(i) })).filter((x) => x.s.file === file)
    const applied = mine.filter((x) => x.line?.status === 'applied').length
    const failed = mine.find((x) => x.line?.status === 'failed')
    const status: FileStatus = applied === mine.length ? 'applied' : failed ? (applied > 0 ? 'partial' : 'failed') : applied > 0 ? 'partial' : 'not-attempted'
    const base = { kind: c.kind, path: c.path, ...(c.moveTo ? { moveTo: c.moveTo.path } : {}), status }
    return failed?.line?.error ? { ...base, error: { path: failed.s.step.path, ...failed.line.error } } : base
  })
  return { ok: files.every((f) => f.status === 'applied'), files }
}

/** The report in a few lines for the model: what was applied, what failed and why, what was not attempted. */
export function reportText(report: PatchReport): string {
  const name = (f: FileReport) => (f.moveTo ? `${f.path} -> ${f.moveTo}` : f.path)
  const lines = report.files.map((f) => {
    if (f.status === 'failed' || f.status === 'partial') return `${f.status === 'partial' ? 'PARTLY APPLIED' : 'FAILED'} ${f.kind} ${name(f)}: ${f.error?.code ?? 'error'} (${f.error?.message ?? ''})`
    return `${f.status === 'applied' ? 'applied' : 'not attempted'} ${f.kind} ${name(f)}`
  })
  return `${report.ok ? 'Patch applied.' : 'Patch NOT fully applied; files above the failure were changed.'}\n${lines.join('\n')}\n`
}
