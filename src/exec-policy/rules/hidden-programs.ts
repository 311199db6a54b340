/**
 * A program named by a prompt or forbidden rule, found where cordon cannot
 * tell whether it runs: in the arguments of a program that is not known
 * safe (even when a rule allows it) (`find . -exec rm {} ;`, `mywrapper rm`,
 * `fish -c 'rm x'`, `python -c 'os.system("rm -rf x")'`), or of a wrapper
 * whose options cordon cannot read. The command is asked, never run
 * unasked (issue 13 §2).
 *
 * Arguments are cut into tokens at blanks and shell or language punctuation,
 * so a program inside a string is found too; a token stands for its
 * basename (`/bin/rm` is `rm`). A rule matches when its pattern matches the
 * tokens that follow, a pattern longer than what follows counting as a
 * match (the rest may come from elsewhere).
 */
import { gitSubcommandIndex } from '../heuristics/flags.js'
import { isKnownSafe } from '../heuristics/safe-commands.js'
import type { CommandSplit, Segment } from '../shell/command-split.js'
import { basenameOf, trustedProgramName } from '../shell/program-name.js'
import type { MatchedRule, Policy, PrefixRule, SegmentDecision } from '../types.js'

const SEPARATORS = /[\s;&|()<>'"`$!{}[\]*?#~^=,:\\@%+]+/

/** Prompt/forbidden rules by their program's basename, per policy. */
const ruled = new WeakMap<Policy, ReadonlyMap<string, readonly PrefixRule[]>>()

function ruledPrograms(policy: Policy): ReadonlyMap<string, readonly PrefixRule[]> {
  let map = ruled.get(policy)
  if (!map) {
    const m = new Map<string, PrefixRule[]>()
    for (const rules of policy.rulesByProgram.values()) {
      for (const rule of rules) {
        if (rule.decision === 'allow') continue
        const name = basenameOf(rule.program)
        const list = m.get(name)
        if (list) list.push(rule)
        else m.set(name, [rule])
      }
    }
    ruled.set(policy, (map = m))
  }
  return map
}

/** Prompt/forbidden rules whose program may run from `args` (argv after its program, minus any words to skip). */
function hiddenRuledPrograms(policy: Policy, args: readonly string[]): MatchedRule[] {
  const programs = ruledPrograms(policy)
  if (programs.size === 0) return []
  const tokens: string[] = []
  for (const arg of args) for (const t of arg.split(SEPARATORS)) if (t !== '') tokens.push(t)
  const out: MatchedRule[] = []
  for (let j = 0; j < tokens.length; j++) {
    const rules = programs.get(basenameOf(tokens[j] as string))
    if (!rules) continue
    for (const rule of rules) {
      if (!rule.rest.every((alts, k) => j + 1 + k >= tokens.length || alts.includes(tokens[j + 1 + k] as string))) continue
      out.push({ decision: rule.decision, justification: rule.justification, where: `${rule.location.file}:${rule.location.line}`, location: rule.location, matchedPrefix: tokens.slice(j, j + 1 + rule.rest.length) })
    }
  }
  return out
}

/**
 * Issue 13 §2: a program a prompt/forbidden rule names, in the arguments of
 * a command cordon cannot place (not known safe — a rule allowing it does not
 * vouch for what it runs — or a wrapper whose options it cannot read), is
 * asked about: that command may run it. git's subcommand word is git's own
 * (`git rm` is not rm).
 */
export function hiddenPrograms(policy: Policy, unplaced: CommandSplit['unplaced'], decided: (segment: Segment) => SegmentDecision | undefined): SegmentDecision[] {
  const out: SegmentDecision[] = []
  for (const { segment, why } of unplaced) {
    const { argv } = segment
    if (argv.length < 2) continue
    if (why === undefined && vouchedFor(policy, segment, decided(segment))) continue
    const found = hiddenRuledPrograms(policy, argumentsToSearch(argv))
    if (found.length === 0) continue
    const names = [...new Set(found.map((m) => m.matchedPrefix[0]))].join(', ')
    const reason = `${names} (named by the rule at ${found.map((m) => m.where).join(', ')}) appears in the arguments of ${argv[0]}${why ? ` (${why})` : ''}, which may run it`
    out.push({ argv, decision: 'prompt', source: 'rule', matchedRules: found, reason })
  }
  return out
}

/**
 * Known safe: the safe list's filters are cordon's own knowledge that the
 * arguments run nothing. A rule that allows the command is not: its author
 * allowed `find`, not the `rm` that `find -exec` would run (strictest wins).
 */
function vouchedFor(policy: Policy, segment: Segment, seg: SegmentDecision | undefined): boolean {
  if (seg?.source === 'heuristic-safe') return true
  const { argv } = segment
  const name = trustedProgramName(policy, argv[0] as string)
  return name !== undefined && isKnownSafe([name, ...argv.slice(1)])
}

function argumentsToSearch(argv: readonly string[]): readonly string[] {
  if (basenameOf(argv[0] as string) !== 'git') return argv.slice(1)
  const at = gitSubcommandIndex(argv)
  return at < 0 ? argv.slice(1) : [...argv.slice(1, at), ...argv.slice(at + 1)]
}
