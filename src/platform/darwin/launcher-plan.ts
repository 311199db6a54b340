/**
 * The macOS launcher's plan (native/darwin/plan.c): NUL-terminated fields,
 * since no path, argument or environment string can contain a NUL. The
 * launcher refuses anything else (a wrong magic or version, a missing or
 * extra field), so a plan from another cordon version is never half-read.
 */
import { PolicyError } from '../../errors.js'

export const DARWIN_PLAN_MAGIC = 'cordon-darwin-plan'
export const DARWIN_PLAN_VERSION = '1'

export interface DarwinLauncherPlan {
  /** `seatbelt`: apply `profile` before exec; `none`: the profile asked for no sandbox. */
  mode: 'seatbelt' | 'none'
  profile: string
  cwd: string
  rlimits: { resource: string; soft: string; hard: string }[]
  argv: string[]
  env: string[]
}

/** The plan as the launcher reads it from fd 3. */
export function encodeDarwinPlan(plan: DarwinLauncherPlan): Buffer {
  if (plan.argv.length === 0) throw new PolicyError('an empty command', { where: 'argv' })
  const fields = [
    DARWIN_PLAN_MAGIC,
    DARWIN_PLAN_VERSION,
    plan.mode,
    plan.profile,
    plan.cwd,
    String(plan.rlimits.length),
    ...plan.rlimits.flatMap((r) => [r.resource, r.soft, r.hard]),
    String(plan.argv.length),
    ...plan.argv,
    String(plan.env.length),
    ...plan.env,
  ]
  const bad = fields.find((f) => f.includes('\0'))
  if (bad !== undefined) throw new PolicyError(`a NUL byte in ${JSON.stringify(bad.slice(0, 40))} (argv, environment and paths cannot carry one)`, { where: 'launch' })
  return Buffer.from(fields.map((f) => `${f}\0`).join(''), 'utf8')
}
