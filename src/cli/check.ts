/**
 * `cordon check --rules FILE... [--json] -- CMD...`: what the exec policy
 * decides for a command, without running it.
 *
 * Exit codes (scripts can branch on them without parsing output):
 *   0  allow      — runs without a prompt
 *   1  prompt     — needs approval (including "no rule matched, not known safe")
 *   2  forbidden  — must not run
 *   64 usage error (EX_USAGE)
 *   65 a rules file is missing or invalid (EX_DATAERR); the message names file:line:col
 *   70 internal error, e.g. the shell grammar could not be loaded (EX_SOFTWARE)
 */
import { CordonError, PolicyError } from '../errors.js'
import { createExecPolicy } from '../exec-policy/exec-policy.js'
import { shlexJoin } from '../exec-policy/rules/shlex.js'
import type { CommandDecision, Decision } from '../exec-policy/types.js'
import type { Io } from './io.js'

const USAGE = 'usage: cordon check --rules FILE... [--json] -- CMD...\n'
const EXIT: Record<Decision, number> = { allow: 0, prompt: 1, forbidden: 2 }
export const CHECK_EXIT = { ...EXIT, usage: 64, policy: 65, internal: 70 } as const

interface CheckArgs {
  readonly rules: string[]
  readonly json: boolean
  readonly command: string[]
}

export async function runCheck(argv: string[], io: Io): Promise<number> {
  const sep = argv.indexOf('--')
  const options = sep < 0 ? argv : argv.slice(0, sep)
  if (options.includes('-h') || options.includes('--help')) {
    io.stdout(USAGE)
    return 0
  }
  const args = parseArgs(argv)
  if (typeof args === 'string') {
    io.stderr(`cordon check: ${args}\n${USAGE}`)
    return CHECK_EXIT.usage
  }
  try {
    const policy = await createExecPolicy({ rules: args.rules })
    const result = policy.decide(args.command)
    io.stdout(args.json ? `${JSON.stringify(result, null, 2)}\n` : formatDecision(result))
    return EXIT[result.decision]
  } catch (err) {
    return reportError(err, args.json, io)
  }
}

/** Parsed arguments, or a usage message. `--rules` takes every following word up to the next flag or `--`. */
function parseArgs(argv: readonly string[]): CheckArgs | string {
  const sep = argv.indexOf('--')
  if (sep < 0) return 'missing -- before the command'
  const command = argv.slice(sep + 1)
  if (command.length === 0) return 'missing command after --'
  const rules: string[] = []
  let json = false
  let inRules = false
  for (const arg of argv.slice(0, sep)) {
    if (!arg.startsWith('-')) {
      if (!inRules) return `unexpected argument ${arg}`
      rules.push(arg)
      continue
    }
    inRules = arg === '--rules'
    if (arg === '--json') json = true
    else if (arg.startsWith('--rules=')) rules.push(arg.slice('--rules='.length))
    else if (!inRules) return `unknown option ${arg}`
  }
  if (rules.length === 0 || rules.some((r) => r === '')) return '--rules needs at least one file'
  return { rules, json, command }
}

function reportError(err: unknown, json: boolean, io: Io): number {
  const isPolicy = err instanceof PolicyError
  const code = isPolicy ? CHECK_EXIT.policy : CHECK_EXIT.internal
  const message = err instanceof Error ? err.message : String(err)
  if (json) {
    const error = { code: err instanceof CordonError ? err.code : 'E_INTERNAL', where: isPolicy ? err.where : undefined, message }
    io.stdout(`${JSON.stringify({ error }, null, 2)}\n`)
  }
  io.stderr(`cordon check: ${message}\n`)
  return code
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
