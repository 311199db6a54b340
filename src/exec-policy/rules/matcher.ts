/**
 * Prefix matching of an argv against the policy, including the
 * `host_executable` rule for absolute program paths:
 *
 * - the first token is compared exactly first (`/usr/bin/git` matches a rule
 *   written for `/usr/bin/git`);
 * - an absolute path also matches rules written for its basename, but ONLY
 *   when `host_executable(name=basename, paths=[…])` lists that exact path.
 *   (Codex allows the fallback when no host_executable exists; we do not: an
 *   unlisted `/tmp/x/git` must never inherit the rules written for `git`.)
 * - a relative path (`./git`, `bin/git`) never matches a basename rule.
 */
import type { MatchedRule, Policy, PrefixRule } from '../types.js'

export function matchRules(policy: Policy, argv: readonly string[]): MatchedRule[] {
  const program = argv[0]
  if (program === undefined) return []
  const matches: MatchedRule[] = []
  collect(policy.rulesByProgram.get(program), argv, undefined, matches)
  const base = listedBasename(policy, program)
  if (base !== undefined) collect(policy.rulesByProgram.get(base), argv, program, matches)
  return matches
}

/** The basename an absolute path may stand for, if `host_executable` lists it. */
export function listedBasename(policy: Policy, program: string): string | undefined {
  if (!program.startsWith('/')) return undefined
  const base = program.slice(program.lastIndexOf('/') + 1)
  if (base === '' || base === program) return undefined
  return policy.hostExecutables.get(base)?.includes(program) ? base : undefined
}

function collect(rules: readonly PrefixRule[] | undefined, argv: readonly string[], resolved: string | undefined, out: MatchedRule[]): void {
  if (!rules) return
  for (const rule of rules) {
    if (!prefixMatches(rule, argv)) continue
    const match: MatchedRule = {
      decision: rule.decision,
      justification: rule.justification,
      where: `${rule.location.file}:${rule.location.line}`,
      location: rule.location,
      matchedPrefix: argv.slice(0, rule.rest.length + 1),
    }
    out.push(resolved === undefined ? match : { ...match, resolvedProgram: resolved })
  }
}

/** argv[1..] must start with one accepted alternative per pattern position. */
function prefixMatches(rule: PrefixRule, argv: readonly string[]): boolean {
  if (argv.length < rule.rest.length + 1) return false
  for (let i = 0; i < rule.rest.length; i++) {
    if (!(rule.rest[i] as readonly string[]).includes(argv[i + 1] as string)) return false
  }
  return true
}

