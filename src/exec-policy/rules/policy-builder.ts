/**
 * Collects what one rules file declares, then checks its inline examples
 * (`match` / `not_match`) once the whole file is read, so a
 * `host_executable` written after a rule still applies to its examples.
 */
import type { Pos } from './ast.js'
import { matchRules } from './matcher.js'
import { shlexJoin } from './shlex.js'
import type { NetworkRule, Policy, PrefixRule } from '../types.js'
import { errorAt } from './values.js'

export interface Example {
  readonly argv: readonly string[]
  readonly pos: Pos
}

interface PendingExamples {
  readonly rules: readonly PrefixRule[]
  readonly matches: readonly Example[]
  readonly notMatches: readonly Example[]
}

export class PolicyBuilder {
  private readonly rules: PrefixRule[] = []
  private readonly networkRules: NetworkRule[] = []
  private readonly hostExecutables = new Map<string, readonly string[]>()
  private readonly pending: PendingExamples[] = []

  constructor(readonly file: string) {}

  addPrefixRules(rules: readonly PrefixRule[], matches: readonly Example[], notMatches: readonly Example[]): void {
    this.rules.push(...rules)
    if (matches.length > 0 || notMatches.length > 0) this.pending.push({ rules, matches, notMatches })
  }

  addNetworkRule(rule: NetworkRule): void {
    this.networkRules.push(rule)
  }

  /** A later declaration for the same name replaces the earlier one (as in Codex). */
  setHostExecutable(name: string, paths: readonly string[]): void {
    this.hostExecutables.set(name, paths)
  }

  /** Validate every example against the rules of its own `prefix_rule` call, then build. */
  build(): Policy {
    for (const group of this.pending) this.validate(group)
    return {
      files: [this.file],
      rulesByProgram: groupByProgram(this.rules),
      networkRules: [...this.networkRules],
      hostExecutables: new Map(this.hostExecutables),
    }
  }

  private validate(group: PendingExamples): void {
    const only: Policy = {
      files: [this.file],
      rulesByProgram: groupByProgram(group.rules),
      networkRules: [],
      hostExecutables: this.hostExecutables,
    }
    for (const example of group.matches) {
      if (matchRules(only, example.argv).length > 0) continue
      throw errorAt(this.file, example.pos, `match example \`${shlexJoin(example.argv)}\` does not match the rule's pattern ${describePattern(group.rules)}`)
    }
    for (const example of group.notMatches) {
      if (matchRules(only, example.argv).length === 0) continue
      throw errorAt(this.file, example.pos, `not_match example \`${shlexJoin(example.argv)}\` matches the rule's pattern ${describePattern(group.rules)}`)
    }
  }
}

export function groupByProgram(rules: Iterable<PrefixRule>): Map<string, PrefixRule[]> {
  const map = new Map<string, PrefixRule[]>()
  for (const rule of rules) {
    const list = map.get(rule.program)
    if (list) list.push(rule)
    else map.set(rule.program, [rule])
  }
  return map
}

function describePattern(rules: readonly PrefixRule[]): string {
  const first = rules[0]
  if (!first) return '[]'
  const head = rules.length === 1 ? first.program : rules.map((r) => r.program)
  return JSON.stringify([head, ...first.rest.map((alts) => (alts.length === 1 ? alts[0] : alts))])
}
