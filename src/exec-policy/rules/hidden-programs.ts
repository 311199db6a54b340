/**
 * A program named by a prompt or forbidden rule, found where cordon cannot
 * tell whether it runs: in the arguments of a program that is neither
 * allowed by a rule nor known safe (`find . -exec rm {} ;`, `mywrapper rm`,
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
import { basenameOf } from '../shell/program-name.js'
import type { MatchedRule, Policy, PrefixRule } from '../types.js'

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
export function hiddenRuledPrograms(policy: Policy, args: readonly string[]): MatchedRule[] {
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
