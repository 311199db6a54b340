/**
 * Deciding a command: split it into the commands that would run, decide
 * each (rules first; heuristics only when no rule matched), and combine with
 * strictest-wins. Synchronous: the shell parser is loaded beforehand.
 */
import type { Parser } from 'web-tree-sitter'
import { proposeAmendment } from './rules/amendment.js'
import { splitCommand, type CommandSplit } from './shell/command-split.js'
import { dangerousReason } from './heuristics/dangerous-commands.js'
import { matchRules } from './rules/matcher.js'
import { trustedProgramName } from './shell/program-name.js'
import { prepareResolve, resolveWith, type PreparedResolve, type ResolvedProgram, type ResolveOptions } from './shell/resolve-program.js'
import { isKnownSafe } from './heuristics/safe-commands.js'
import { stricter, type CommandDecision, type DecideOptions, type Decision, type DecisionSource, type MatchedRule, type Policy, type SegmentDecision } from './types.js'

/** When several segments share the strictest decision, the overall source is the first of these present. */
const SOURCE_PRIORITY: readonly DecisionSource[] = ['rule', 'heuristic-dangerous', 'default', 'heuristic-safe']

export function decideCommand(parser: Parser, policy: Policy, argv: readonly string[], options: DecideOptions = {}): CommandDecision {
  const split = splitCommand(parser, policy, argv)
  if (split.opaque) return combine([decideOpaque(policy, split)], true)
  const resolver = options.resolve ? resolverFor(options.resolve) : undefined
  const segments = split.segments.map((segment) => decideSegment(policy, segment, resolver))
  for (const also of alsoCheckSegments(policy, split.alsoCheck)) segments.push(also)
  return combine(segments, false)
}

type Resolver = (program: string) => ResolvedProgram

/** PATH lookups for one decision: options validated and writable roots canonicalised once, on first need. */
function resolverFor(options: ResolveOptions): Resolver {
  let prepared: PreparedResolve | undefined
  return (program) => resolveWith(program, (prepared ??= prepareResolve(options)))
}

function decideSegment(policy: Policy, argv: readonly string[], resolver: Resolver | undefined): SegmentDecision {
  const matchedRules = matchRules(policy, argv)
  const decided: SegmentDecision =
    matchedRules.length > 0 ? { argv, decision: strictest(matchedRules, 'allow'), source: 'rule', matchedRules } : heuristic(policy, argv)
  return resolver ? checkResolution(policy, decided, resolver) : decided
}

function heuristic(policy: Policy, argv: readonly string[]): SegmentDecision {
  const danger = dangerousReason(argv)
  if (danger) return { argv, decision: 'prompt', source: 'heuristic-dangerous', matchedRules: [], reason: danger }
  const program = argv[0] as string
  const name = trustedProgramName(policy, program)
  if (name !== undefined && isKnownSafe(name === program ? argv : [name, ...argv.slice(1)])) return { argv, decision: 'allow', source: 'heuristic-safe', matchedRules: [] }
  return { argv, decision: 'prompt', source: 'default', matchedRules: [], reason: 'no rule matched and the command is not known safe' }
}

/** An allowed bare name must resolve to a program the command could not have planted. */
function checkResolution(policy: Policy, seg: SegmentDecision, resolve: Resolver): SegmentDecision {
  const program = seg.argv[0] as string
  if (seg.decision !== 'allow' || program.includes('/')) return seg
  const resolved = resolve(program)
  if (!resolved.ok) return { ...seg, decision: 'prompt', reason: `cannot trust ${program}: ${resolved.reason}` }
  const listed = policy.hostExecutables.get(program)
  if (listed && !listed.includes(resolved.path)) {
    return { ...seg, decision: 'prompt', reason: `${program} resolves to ${resolved.path}, which host_executable does not list` }
  }
  return seg
}

/**
 * An opaque script needs approval at least. Rules on the whole argv count,
 * and so do `forbidden` rules matching plain commands seen inside it, so
 * `rm -rf / > /dev/null` is still forbidden by a rule forbidding `rm`.
 */
function decideOpaque(policy: Policy, split: CommandSplit): SegmentDecision {
  const argv = split.segments[0] as string[]
  const hinted = split.hints.flatMap((hint) => matchRules(policy, hint).filter((m) => m.decision === 'forbidden'))
  const matchedRules = [...matchRules(policy, argv), ...hinted]
  const danger = split.hints.map((hint) => dangerousReason(hint)).find((r) => r !== undefined)
  const source: DecisionSource = matchedRules.length > 0 ? 'rule' : danger ? 'heuristic-dangerous' : 'default'
  const reason = `opaque shell script: ${split.reason ?? 'not plain commands'}${danger ? `; ${danger}` : ''}`
  return { argv, decision: strictest(matchedRules, 'prompt'), source, matchedRules, reason }
}

/**
 * Argvs that also run (an unwrapped `bash -lc`, the `rm` in `env X=1 rm`):
 * their prompt/forbidden rules apply; allow rules and heuristics do not, since
 * the segment itself was already decided as written.
 */
function alsoCheckSegments(policy: Policy, argvs: readonly (readonly string[])[]): SegmentDecision[] {
  const out: SegmentDecision[] = []
  for (const argv of argvs) {
    const matchedRules = matchRules(policy, argv).filter((m) => m.decision !== 'allow')
    if (matchedRules.length > 0) out.push({ argv, decision: strictest(matchedRules, 'allow'), source: 'rule', matchedRules })
  }
  return out
}

// Plain loops below: every decide() runs them, and V8's flatMap alone costs more than the rest of combine().
function combine(segments: readonly SegmentDecision[], opaque: boolean): CommandDecision {
  let decision: Decision = 'allow'
  const matchedRules: MatchedRule[] = []
  for (const seg of segments) {
    decision = stricter(decision, seg.decision)
    for (const m of seg.matchedRules) matchedRules.push(m)
  }
  const result: CommandDecision = { decision, source: sourceOf(segments, decision), matchedRules, segments, opaque }
  const amendment = opaque ? undefined : amendmentFor(segments, decision)
  return amendment ? { ...result, proposedAmendment: amendment } : result
}

/** Of the segments with the overall decision, the source that comes first in SOURCE_PRIORITY. */
function sourceOf(segments: readonly SegmentDecision[], decision: Decision): DecisionSource {
  let best = SOURCE_PRIORITY.length
  for (const seg of segments) {
    const rank = seg.decision === decision ? SOURCE_PRIORITY.indexOf(seg.source) : -1
    if (rank >= 0 && rank < best) best = rank
  }
  return SOURCE_PRIORITY[best] ?? 'default'
}

/** Offer "always allow" only when exactly one segment needs approval, and only because nothing knew it. */
function amendmentFor(segments: readonly SegmentDecision[], decision: Decision): string[] | undefined {
  if (decision !== 'prompt') return undefined
  const pending = segments.filter((s) => s.decision !== 'allow')
  const only = pending[0]
  return pending.length === 1 && only?.source === 'default' ? proposeAmendment(only.argv) : undefined
}

function strictest(matches: readonly MatchedRule[], floor: Decision): Decision {
  let decision = floor
  for (const m of matches) decision = stricter(decision, m.decision)
  return decision
}
