/**
 * `cordon check --rules FILE... [--json] -- CMD...`: what the exec policy
 * decides for a command, without running it. Scripts can branch on the exit
 * status without parsing output: 0 allow, 1 prompt, 2 forbidden, 64 usage,
 * 65 rules file error, 70 internal (the CHECK table in flags.ts).
 */
import { PolicyError } from '../errors.js'
import { createExecPolicy } from '../exec-policy/exec-policy.js'
import { shlexJoin } from '../exec-policy/rules/shlex.js'
import type { CommandDecision, Decision } from '../exec-policy/types.js'
import { parseArgs, UsageError } from './args.js'
import { CHECK, EXIT } from './flags.js'
import { printHelp } from './help.js'
import type { Io } from './io.js'
import { reportError, reportUsage } from './report.js'

const DECISION_EXIT: Record<Decision, number> = { allow: 0, prompt: 1, forbidden: 2 }
export const CHECK_EXIT = { ...DECISION_EXIT, usage: EXIT.usage, policy: EXIT.dataError, internal: EXIT.internal } as const

export async function runCheck(argv: readonly string[], io: Io): Promise<number> {
  const p = parseArgs(argv, CHECK)
  const json = p.switches.has('--json')
  if (p.switches.has('--help')) return printHelp(CHECK, json, io)
  if (p.error !== undefined) return reportUsage(CHECK, new UsageError(p.error), json, io)
  try {
    const policy = await createExecPolicy({ rules: p.values['--rules']! })
    const result = policy.decide(p.command)
    io.stdout(json ? `${JSON.stringify(result, null, 2)}\n` : formatDecision(result))
    return DECISION_EXIT[result.decision]
  } catch (err) {
    return reportError(CHECK.name, err, json, io, err instanceof PolicyError ? CHECK_EXIT.policy : CHECK_EXIT.internal)
  }
}

/** Human-readable report: the verdict, each segment, the rules that matched, a suggested rule. */
export function formatDecision(result: CommandDecision): string {
  const lines = [`decision: ${result.decision} (${result.source}${result.opaque ? ', opaque shell script' : ''})`]
  for (const seg of result.segments) {
    lines.push(`  ${seg.decision.padEnd(9)} ${shlexJoin(seg.argv)}  [${seg.source}]${seg.reason ? ` — ${seg.reason}` : ''}`)
  }
  if (result.matchedRules.length > 0) lines.push('matched rules:')
  for (const rule of result.matchedRules) {
    const via = rule.resolvedProgram ? ` via ${rule.resolvedProgram}` : ''
    lines.push(`  ${rule.where}  ${rule.decision}  ${shlexJoin(rule.matchedPrefix)}${via}${rule.justification ? ` — ${rule.justification}` : ''}`)
  }
  if (result.proposedAmendment) {
    lines.push(`to always allow: prefix_rule(pattern=${JSON.stringify(result.proposedAmendment)}, decision="allow")`)
  }
  return `${lines.join('\n')}\n`
}
