/**
 * The Windows launcher's plan on the wire (native/win32/plan.c reads it):
 * UTF-8 fields separated by NUL, KEY VALUE pairs, first `v 1`, last `end`.
 * NUL cannot occur in a Windows path, command line or environment string,
 * so no value needs escaping and none can forge a field; one is refused
 * here too, never cut short there.
 */
import { PolicyError } from '../../errors.js'
import type { Win32LaunchPlan } from './plan.js'

export interface Win32Launch {
  app: string
  cmdline: string
  cwd: string
  /** NAME=value, in the order Windows keeps an environment block (sorted, case-insensitively). */
  env: string[]
}

/** The environment as a Windows block wants it: sorted by upper-cased name (MSDN, "Changing Environment Variables"). */
export function envBlock(env: Readonly<Record<string, string>>): string[] {
  const names = Object.keys(env).sort((a, b) => {
    const x = a.toUpperCase()
    const y = b.toUpperCase()
    return x < y ? -1 : x > y ? 1 : 0
  })
  return names.map((n) => `${n}=${env[n]}`)
}

export function encodePlan(plan: Win32LaunchPlan, launch: Win32Launch): Buffer {
  const fields: [string, string][] = [
    ['v', '1'],
    ['app', launch.app],
    ['cmdline', launch.cmdline],
    ['cwd', launch.cwd],
    ['sid', plan.sid],
    ['journal', plan.journal],
    ['integrity', plan.integrity],
    ...launch.env.map((e): [string, string] => ['env', e]),
    ...plan.allow.map((p): [string, string] => ['allow', p]),
    ...plan.deny.map((p): [string, string] => ['deny', p]),
    ...plan.guard.map((p): [string, string] => ['guard', p]),
    ...plan.noReadUp.map((p): [string, string] => ['noreadup', p]),
  ]
  if (plan.limits.procs) fields.push(['procs', String(plan.limits.procs)])
  if (plan.limits.memory) fields.push(['memory', String(plan.limits.memory)])
  if (plan.limits.cpu) fields.push(['cpu', String(plan.limits.cpu)])
  const bad = fields.find(([, v]) => v.includes('\0'))
  if (bad) throw new PolicyError(`${bad[0]} contains a NUL character, which Windows cannot carry`, { where: bad[0] })
  return Buffer.from([...fields.flat(), 'end', ''].join('\0'), 'utf8')
}
