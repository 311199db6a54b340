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


/** What the words of a segment could be, for rules longer than its known prefix. */
export interface UnknownWords {
  /** Per word, its glob (a glob word stands for one or more words it matches). */
  readonly globs?: readonly ({ readonly word: string; readonly regex: RegExp } | undefined)[]
  /** From this index on, anything (xargs input). */
  readonly unknownFrom?: number
}

/**
 * Rules that *could* match an argv whose words are partly unknown — a glob
 * expands to the file names it matches, xargs appends its input — but do
 * not match for certain. Words before the first unknown one are fixed;
 * after it, a pattern position can be any literal word that follows, any
 * word a following glob could match, or (with an unknown tail) anything.
 * Only prompt/forbidden rules are returned: an allow rule must match for
 * certain (matchRules on the argv as written).
 */
export function possibleMatches(policy: Policy, argv: readonly string[], unknown: UnknownWords): MatchedRule[] {
  const program = argv[0]
  if (program === undefined) return []
  let first = unknown.unknownFrom ?? argv.length
  const globs = unknown.globs
  if (globs) for (let i = 0; i < first; i++) if (globs[i]) first = i
  if (first >= argv.length && unknown.unknownFrom === undefined) return []
  const literals = new Set<string>()
  const patterns: RegExp[] = []
  for (let i = first; i < argv.length && i < (unknown.unknownFrom ?? argv.length); i++) {
    const glob = globs?.[i]
    literals.add(glob ? glob.word : (argv[i] as string))
    if (glob) patterns.push(glob.regex)
  }
  const anything = unknown.unknownFrom !== undefined
  const could = (word: string): boolean => anything || literals.has(word) || patterns.some((p) => p.test(word))
  const out: MatchedRule[] = []
  const base = listedBasename(policy, program)
  for (const [rules, resolved] of [[policy.rulesByProgram.get(program), undefined], [base === undefined ? undefined : policy.rulesByProgram.get(base), program]] as const) {
    for (const rule of rules ?? []) {
      if (rule.decision === 'allow' || rule.rest.length + 1 <= first) continue
      if (!couldMatch(rule, argv, first, could)) continue
      const match: MatchedRule = { decision: rule.decision, justification: rule.justification, where: `${rule.location.file}:${rule.location.line}`, location: rule.location, matchedPrefix: argv.slice(0, first) }
      out.push(resolved === undefined ? match : { ...match, resolvedProgram: resolved })
    }
  }
  return out
}

function couldMatch(rule: PrefixRule, argv: readonly string[], first: number, could: (word: string) => boolean): boolean {
  for (let i = 0; i < rule.rest.length; i++) {
    const alternatives = rule.rest[i] as readonly string[]
    if (i + 1 < first ? !alternatives.includes(argv[i + 1] as string) : !alternatives.some(could)) return false
  }
  return true
}
