/**
 * Deciding a command: split it into the commands that would run, decide
 * each (rules first; heuristics only when no rule matched), and combine with
 * strictest-wins. Synchronous: the shell parser is loaded beforehand.
 */
import type { Parser } from 'web-tree-sitter'
import { proposeAmendment } from './rules/amendment.js'
import { splitCommand, type CommandSplit, type Segment } from './shell/command-split.js'
import { dangerousReason } from './heuristics/dangerous-commands.js'
import { hiddenPrograms } from './rules/hidden-programs.js'
import { matchRules, possibleMatches } from './rules/matcher.js'
import { prepareWorkspace, writeVerdict, type PreparedWorkspace } from './heuristics/redirections.js'
import { trustedProgramName } from './shell/program-name.js'
import { prepareResolve, resolveWith, type PreparedResolve, type ResolvedProgram, type ResolveOptions } from './shell/resolve-program.js'
import { isKnownSafe, isKnownSafeForAnyArguments } from './heuristics/safe-commands.js'
import { stricter, type CommandDecision, type DecideOptions, type Decision, type DecisionSource, type MatchedRule, type Policy, type SegmentDecision } from './types.js'

/**
 * Segments whose argv as written is not what runs (a glob expands): an
 * "always allow" rule made of it would never match what it was meant for.
 */
const NO_AMENDMENT = new WeakSet<SegmentDecision>()

/** When several segments share the strictest decision, the overall source is the first of these present. */
const SOURCE_PRIORITY: readonly DecisionSource[] = ['rule', 'heuristic-dangerous', 'default', 'heuristic-safe']

/** Per-decision context: lookups prepared on first need. */
interface Context {
  readonly resolve: Resolver | undefined
  readonly workspace: () => PreparedWorkspace | undefined
}

export function decideCommand(parser: Parser, policy: Policy, argv: readonly string[], options: DecideOptions = {}): CommandDecision {
  const split = splitCommand(parser, policy, argv, options.env)
  if (split.opaque) return combine([decideOpaque(policy, split)], true)
  const ctx: Context = { resolve: options.resolve ? resolverFor(options.resolve) : undefined, workspace: workspaceFor(options) }
  const segments: SegmentDecision[] = []
  const decided = new Map<Segment, SegmentDecision>()
  for (const segment of split.segments) {
    const seg = decideSegment(policy, segment, ctx)
    segments.push(seg)
    decided.set(segment, seg)
  }
  for (const also of alsoCheckSegments(policy, split.alsoCheck)) segments.push(also)
  if (split.unplaced.length > 0) for (const hidden of hiddenPrograms(policy, split.unplaced, (segment) => decided.get(segment))) segments.push(hidden)
  return combine(segments, false)
}

type Resolver = (program: string) => ResolvedProgram

/** PATH lookups for one decision: options validated and writable roots canonicalised once, on first need. */
function resolverFor(options: ResolveOptions): Resolver {
  let prepared: PreparedResolve | undefined
  return (program) => resolveWith(program, (prepared ??= prepareResolve(options)))
}

function workspaceFor(options: DecideOptions): () => PreparedWorkspace | undefined {
  const ws = options.workspace ?? (options.resolve ? { cwd: options.resolve.cwd, writableRoots: options.resolve.writableRoots } : undefined)
  let prepared: PreparedWorkspace | undefined
  return () => (ws ? (prepared ??= prepareWorkspace(ws)) : undefined)
}

/** Index of the first word whose value is not known before the command runs (a glob, xargs input); argv.length if none. */
function firstUnknown(seg: Segment): number {
  let first = seg.unknownFrom ?? seg.argv.length
  if (seg.globs) for (let i = 0; i < first; i++) if (seg.globs[i]) first = i
  return first
}

function decideSegment(policy: Policy, seg: Segment, ctx: Context): SegmentDecision {
  const { argv } = seg
  const first = firstUnknown(seg)
  // Only the words before the first unknown one are certain: a rule matches for sure only within them.
  const matchedRules = matchRules(policy, first < argv.length ? argv.slice(0, first) : argv)
  let decided: SegmentDecision =
    matchedRules.length > 0 ? { argv, decision: strictest(matchedRules, 'allow'), source: 'rule', matchedRules } : heuristic(policy, seg, first < argv.length)
  if (first < argv.length) decided = withPossibleRules(decided, possibleMatches(policy, argv, seg))
  if (seg.redirects) decided = { ...withWrites(decided, seg, ctx), redirects: seg.redirects }
  if (ctx.resolve) decided = checkResolution(policy, decided, ctx.resolve)
  if (seg.globs) {
    const globs: number[] = []
    seg.globs.forEach((g, i) => g && globs.push(i))
    decided = { ...decided, globs }
    NO_AMENDMENT.add(decided)
  }
  return decided
}

function heuristic(policy: Policy, seg: Segment, hasGlob: boolean): SegmentDecision {
  const { argv } = seg
  const danger = dangerousReason(argv, seg.globs)
  if (danger) return { argv, decision: 'prompt', source: 'heuristic-dangerous', matchedRules: [], reason: danger }
  const program = argv[0] as string
  const name = trustedProgramName(policy, program)
  if (name !== undefined && (hasGlob ? isKnownSafeForAnyArguments(name) : isKnownSafe(name === program ? argv : [name, ...argv.slice(1)]))) {
    return { argv, decision: 'allow', source: 'heuristic-safe', matchedRules: [] }
  }
  const reason = hasGlob && name !== undefined && isKnownSafe([name]) ? 'a glob in the arguments of a command that is safe only with some arguments' : 'no rule matched and the command is not known safe'
  return { argv, decision: 'prompt', source: 'default', matchedRules: [], reason }
}

/** Prompt/forbidden rules a glob or an unknown tail could make match: asked (not forbidden: they may not match). */
function withPossibleRules(seg: SegmentDecision, possible: readonly MatchedRule[]): SegmentDecision {
  if (possible.length === 0 || seg.decision === 'forbidden') return seg
  const where = possible.map((m) => m.where).join(', ')
  return { ...seg, decision: 'prompt', source: 'rule', matchedRules: [...seg.matchedRules, ...possible], reason: `a glob or an unknown word could make it match the rule at ${where}` }
}

/** Redirections: a write makes a command not read-only; a write outside the workspace is asked. */
function withWrites(seg: SegmentDecision, segment: Segment, ctx: Context): SegmentDecision {
  const verdict = writeVerdict(segment.redirects ?? [], segment.cwdUnknown === true, ctx.workspace)
  if (verdict.kind === 'none') return seg
  if (verdict.kind === 'workspace') {
    if (seg.source !== 'heuristic-safe') return seg
    return { ...seg, decision: 'prompt', source: 'default', reason: `writes ${verdict.targets.join(', ')} (a redirection): not read-only` }
  }
  if (seg.decision === 'forbidden') return seg
  const source: DecisionSource = seg.source === 'rule' && seg.decision === 'prompt' ? 'rule' : 'heuristic-dangerous'
  return { ...seg, decision: 'prompt', source, reason: verdict.reason }
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
  const argv = (split.segments[0] as Segment).argv
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
 * the segment itself was already decided as written. A rule that a glob or
 * xargs input could make match is asked.
 */
function alsoCheckSegments(policy: Policy, segments: readonly Segment[]): SegmentDecision[] {
  const out: SegmentDecision[] = []
  for (const seg of segments) {
    const { argv } = seg
    const first = firstUnknown(seg)
    const matchedRules = matchRules(policy, first < argv.length ? argv.slice(0, first) : argv).filter((m) => m.decision !== 'allow')
    let decided: SegmentDecision = { argv, decision: strictest(matchedRules, 'allow'), source: 'rule', matchedRules }
    if (first < argv.length || seg.unknownFrom !== undefined) decided = withPossibleRules(decided, possibleMatches(policy, argv, seg))
    if (decided.matchedRules.length > 0) out.push(decided)
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
  return pending.length === 1 && only?.source === 'default' && !NO_AMENDMENT.has(only) ? proposeAmendment(only.argv) : undefined
}

function strictest(matches: readonly MatchedRule[], floor: Decision): Decision {
  let decision = floor
  for (const m of matches) decision = stricter(decision, m.decision)
  return decision
}
