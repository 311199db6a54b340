/**
 * `cordon check --rules FILE... [--profile P] [--cwd DIR] [--write PATH]
 * [--json] -- CMD...`: what the exec policy decides for a command, without
 * running it, in the workspace `cordon run` would give it. Scripts can branch on the exit
 * status without parsing output: 0 allow, 1 prompt, 2 forbidden, 64 usage,
 * 65 rules file error, 125 bad profile or path, 70 internal (the CHECK table in flags.ts).
 */
import { PolicyError } from '../errors.js'
import { createExecPolicy } from '../exec-policy/exec-policy.js'
import { shlexJoin } from '../exec-policy/rules/shlex.js'
import type { CommandDecision, Decision } from '../exec-policy/types.js'
import { resolve } from 'node:path'
import type { Workspace } from '../exec-policy/heuristics/redirections.js'
import { createSandbox } from '../sandbox/sandbox.js'
import { parseArgs, UsageError, type Parsed } from './args.js'
import { CHECK, EXIT } from './flags.js'
import { printHelp } from './help.js'
import type { Io } from './io.js'
import { reportError, reportUsage } from './report.js'

const DECISION_EXIT: Record<Decision, number> = { allow: 0, prompt: 1, forbidden: 2 }
export const CHECK_EXIT = { ...DECISION_EXIT, usage: EXIT.usage, policy: EXIT.dataError, setup: EXIT.setup, internal: EXIT.internal } as const

export async function runCheck(argv: readonly string[], io: Io): Promise<number> {
  const p = parseArgs(argv, CHECK)
  const json = p.switches.has('--json')
  if (p.switches.has('--help')) return printHelp(CHECK, json, io)
  if (p.error !== undefined) return reportUsage(CHECK, new UsageError(p.error), json, io)
  try {
    const policy = await createExecPolicy({ rules: p.values['--rules']! })
    const ws = workspaceOf(p)
    if (ws instanceof Error) return reportError(CHECK.name, ws, json, io, CHECK_EXIT.setup)
    const result = policy.decide(p.command, { workspace: ws })
    io.stdout(json ? `${JSON.stringify(result, null, 2)}\n` : formatDecision(result))
    return DECISION_EXIT[result.decision]
  } catch (err) {
    return reportError(CHECK.name, err, json, io, err instanceof PolicyError ? CHECK_EXIT.policy : CHECK_EXIT.internal)
  }
}

/**
 * Where the command would run and what it could write, from the report of
 * the sandbox `cordon run` would make with the same --profile, --cwd and
 * --write (nothing is launched): a redirection into the workspace is then
 * judged as the run would see it instead of being asked about.
 */
function workspaceOf(p: Parsed): Workspace | Error {
  const cwd = resolve(p.values['--cwd']?.[0] ?? process.cwd())
  const profile = p.values['--profile']?.[0]
  let sb: ReturnType<typeof createSandbox> | undefined
  try {
    sb = createSandbox({ cwd, ...(profile ? { profile } : {}), write: p.values['--write'] ?? [] })
    const fs = sb.report().filesystem
    return { cwd, writableRoots: fs.writeRoots, protectedPaths: fs.protected }
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err))
  } finally {
    sb?.close()
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
