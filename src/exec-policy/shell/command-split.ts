/**
 * Turns an argv into the commands that would actually run. A shell given a
 * script (`bash|sh|dash|zsh|ksh … -c SCRIPT`, options read as the shell
 * reads them: shell-invocation.ts; a bare name, a system path, or a path
 * host_executable lists) is unwrapped by splitting SCRIPT; wrappers
 * (wrappers.ts) are looked through; nested forms are unwrapped too, up to a
 * small depth. Any other argv is one segment, taken literally.
 *
 * Besides the segments, we return argvs that are also run but are not
 * decided on their own — the shells we unwrapped and the inner commands of
 * wrappers — whose prompt/forbidden rules still apply, so `env X=1 rm -rf /`
 * cannot dodge a rule on `rm`; and the commands whose arguments may hold a
 * program cordon cannot place (an unknown program, a wrapper whose options it
 * cannot read), which decide.ts searches for ruled programs.
 */
import type { Parser } from 'web-tree-sitter'
import type { GlobPattern } from './glob-pattern.js'
import { trustedProgramName } from './program-name.js'
import { shellChangingAssignment, shellChangingVariable } from './shell-environment.js'
import { isShellName, readShellInvocation } from './shell-invocation.js'
import type { Redirect, ScriptCommand } from './script-reader.js'
import { splitScript } from './shell-script.js'
import type { Policy } from '../types.js'
import { innerCommand, isTransparentWrapper } from './wrappers.js'

/** One command that runs, with what is known about its words. */
export interface Segment {
  readonly argv: readonly string[]
  /** Per word, its glob (absent when none): the word stands for the names it matches. */
  readonly globs?: readonly (GlobPattern | undefined)[]
  readonly redirects?: readonly Redirect[]
  /** A `cd`/`pushd`/`popd` ran before it in its script: a relative path names a directory cordon does not know. */
  readonly cwdUnknown?: boolean
  /** From this argv index on the words are unknown (xargs appends its input). */
  readonly unknownFrom?: number
  /** A variable in its environment that changes what a shell runs (shell-environment.ts): no shell under it is read. */
  readonly shellVariable?: string
}

type Segments = readonly Segment[]

export interface CommandSplit {
  /** The commands to decide; for an opaque script, just the original argv. */
  readonly segments: Segments
  readonly opaque: boolean
  readonly reason?: string
  /** Also run: unwrapped shells and wrapped inner commands (checked for prompt/forbidden rules only). */
  readonly alsoCheck: Segments
  /** For opaque scripts: plain command prefixes seen inside, to let forbidden rules fire. */
  readonly hints: readonly (readonly string[])[]
  /** Commands whose arguments may run a program cordon cannot place; `why` says what could not be read. */
  readonly unplaced: readonly { readonly segment: Segment; readonly why?: string }[]
}

/** Shells inside shells (each level is a parse); wrappers inside wrappers (cheap) may go deeper. */
const MAX_NESTING = 3
const MAX_WRAPPERS = 8
/** Builtins after which a relative path in a later command of the same script is relative to somewhere else. */
const CHANGES_DIRECTORY = new Set(['cd', 'pushd', 'popd'])

/** The script of a shell-with-script argv, or undefined when argv is not one (kept for callers of the old API). */
export function shellScriptOf(policy: Policy, argv: readonly string[]): string | undefined {
  const name = trustedProgramName(policy, argv[0] as string)
  if (name === undefined || !isShellName(name)) return undefined
  const inv = readShellInvocation(name, argv.slice(1))
  return inv.kind === 'script' ? inv.script : undefined
}

/** `env`: the variables the command runs with besides the sandbox's own (a request's additions). */
export function splitCommand(parser: Parser, policy: Policy, argv: readonly string[], env?: Readonly<Record<string, string | undefined>>): CommandSplit {
  const variable = env ? shellChangingVariable(Object.keys(env)) : undefined
  return splitSegment(parser, policy, variable ? { argv, shellVariable: variable } : { argv }, 0, 0)
}

/** `depth`: shells this segment is inside; `wraps`: wrappers it is inside. */
function splitSegment(parser: Parser, policy: Policy, segment: Segment, depth: number, wraps: number): CommandSplit {
  const { argv } = segment
  const name = trustedProgramName(policy, argv[0] as string)
  if (name !== undefined && isShellName(name)) {
    const inv = readShellInvocation(name, argv.slice(1))
    if (inv.kind === 'refused') return opaque(argv, inv.reason, scriptHints(parser, argv))
    if (inv.kind === 'script') {
      if (segment.shellVariable) return opaque(argv, `${segment.shellVariable} is set: it changes what ${name} runs`, scriptHints(parser, argv))
      if (segment.globs?.some((g) => g !== undefined)) return opaque(argv, `a glob in the arguments of ${name}`, [])
      if (depth >= MAX_NESTING) return opaque(argv, 'shell wrappers nested too deeply', [])
      return splitShell(parser, policy, segment, inv.script, depth)
    }
  }
  if (wraps >= MAX_WRAPPERS) return plain(segment, [], [], [{ segment, why: 'wrappers nested too deeply' }])
  return throughWrapper(parser, policy, segment, depth, wraps)
}

/** A shell running SCRIPT: every command of the script, each split in turn. */
function splitShell(parser: Parser, policy: Policy, shell: Segment, script: string, depth: number): CommandSplit {
  const split = splitScript(parser, script)
  if (split.opaque) return opaque(shell.argv, split.reason, split.hints)
  const segments: Segment[] = []
  const alsoCheck: Segment[] = [{ argv: [...shell.argv] }]
  const unplaced: CommandSplit['unplaced'][number][] = []
  let cwdUnknown = shell.cwdUnknown === true
  for (const command of split.commands) {
    const inner = splitSegment(parser, policy, segmentOf(command, cwdUnknown, shell.shellVariable), depth + 1, 0)
    if (inner.opaque) return opaque(shell.argv, `inside ${command.argv[0]}: ${inner.reason}`, [...split.commands.map((c) => c.argv), ...inner.hints])
    append(segments, inner.segments)
    append(alsoCheck, inner.alsoCheck)
    append(unplaced, inner.unplaced)
    if (command.argv.some((w) => CHANGES_DIRECTORY.has(w))) cwdUnknown = true
  }
  return { segments, opaque: false, alsoCheck, hints: [], unplaced }
}

/** A copy of a script's command (the split cache shares its arrays). */
function segmentOf(command: ScriptCommand, cwdUnknown: boolean, shellVariable: string | undefined): Segment {
  return {
    argv: [...command.argv],
    ...(command.globs ? { globs: command.globs } : {}),
    ...(command.redirects ? { redirects: command.redirects } : {}),
    ...(cwdUnknown ? { cwdUnknown } : {}),
    ...(shellVariable ? { shellVariable } : {}),
  }
}

/**
 * A plain command, and what it runs if it is a wrapper. In a script, a
 * transparent builtin (`command ls`, `exec ls`, zsh's `noglob ls`) is the
 * command it runs: that command is decided in its place, with its
 * redirections. Any other wrapper is decided as written, and what it runs
 * is checked.
 */
function throughWrapper(parser: Parser, policy: Policy, segment: Segment, depth: number, wraps: number): CommandSplit {
  const { argv } = segment
  const inner = innerCommand(argv, segment.globs)
  if (inner === undefined) return plain(segment, [], [], [{ segment }])
  if (inner.kind === 'none') return plain(segment, [], [], [])
  if (inner.kind === 'unknown') return plain(segment, [], [], [{ segment, why: inner.reason }])
  // Builtins, so only inside a script: as an argv of its own, `command` is whatever file PATH finds.
  const transparent = depth > 0 && inner.kind === 'argv' && isTransparentWrapper(argv[0] as string)
  // `env BASH_FUNC_ls%%='() { … }' bash -c ls`: the wrapper's own assignments reach the shell too.
  const shellVariable = segment.shellVariable ?? (inner.kind === 'argv' ? shellChangingAssignment(argv.slice(1, inner.offset)) : undefined)
  const sliced: Segment =
    inner.kind === 'script'
      ? { argv: ['sh', '-c', inner.script], ...(segment.cwdUnknown ? { cwdUnknown: true } : {}) }
      : sliceSegment(segment, inner.offset, inner.unknownFrom, transparent)
  const innerSegment: Segment = shellVariable ? { ...sliced, shellVariable } : sliced
  const split = splitSegment(parser, policy, innerSegment, depth, wraps + 1)
  if (split.opaque) return opaque(argv, `inside ${argv[0]}: ${split.reason}`, [innerSegment.argv, ...split.hints])
  if (transparent) return { ...split, alsoCheck: [{ argv }, ...split.alsoCheck] }
  return plain(segment, [...split.segments, ...split.alsoCheck], split.hints, split.unplaced)
}

function sliceSegment(segment: Segment, offset: number, unknownFrom: number | undefined, withRedirects: boolean): Segment {
  const globs = segment.globs?.slice(offset)
  return {
    argv: segment.argv.slice(offset),
    ...(globs?.some((g) => g !== undefined) ? { globs } : {}),
    ...(withRedirects && segment.redirects ? { redirects: segment.redirects } : {}),
    ...(segment.cwdUnknown ? { cwdUnknown: true } : {}),
    ...(unknownFrom !== undefined ? { unknownFrom: unknownFrom - offset } : {}),
    ...(segment.shellVariable ? { shellVariable: segment.shellVariable } : {}),
  }
}

function plain(segment: Segment, alsoCheck: Segments, hints: CommandSplit['hints'], unplaced: CommandSplit['unplaced']): CommandSplit {
  return { segments: [segment], opaque: false, alsoCheck, hints, unplaced }
}

/** For a shell command line cordon refused to read: the commands of any argument that reads as a script. */
function scriptHints(parser: Parser, argv: readonly string[]): readonly (readonly string[])[] {
  const hints: (readonly string[])[] = []
  for (const arg of argv.slice(1)) {
    if (arg.startsWith('-')) continue
    const split = splitScript(parser, arg)
    append(hints, split.opaque ? split.hints : split.commands.map((c) => c.argv))
  }
  return hints
}

/** `target.push(...items)` without the spread call, which costs V8 more than the loop. */
function append<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item)
}

/** Hints may be the split cache's own arrays: they leave as copies. */
function opaque(argv: readonly string[], reason: string, hints: CommandSplit['hints']): CommandSplit {
  return { segments: [{ argv: [...argv] }], opaque: true, reason, alsoCheck: [], hints: hints.map((hint) => [...hint]), unplaced: [] }
}
