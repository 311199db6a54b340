/**
 * Turns an argv into the commands that would actually run. `bash|sh|zsh
 * -c|-lc SCRIPT` (bare name, a system path, or a path host_executable
 * lists) is unwrapped by parsing SCRIPT; nested wrappers are unwrapped too,
 * up to a small depth. Any other argv is one segment, taken literally.
 *
 * Besides the segments, we return argvs that are also run but are not
 * decided on their own: the shell wrappers we unwrapped and the inner
 * commands of `env`/`sudo`/`timeout`… (wrappers.ts). Rules that prompt or
 * forbid those still apply, so `env X=1 rm -rf /` cannot dodge a rule on `rm`.
 */
import type { Parser } from 'web-tree-sitter'
import { trustedProgramName } from './program-name.js'
import { splitScript } from './shell-script.js'
import type { Policy } from '../types.js'
import { innerCommand } from './wrappers.js'

type Argvs = readonly (readonly string[])[]

export interface CommandSplit {
  /** The commands to decide; for an opaque script, just the original argv. */
  readonly segments: Argvs
  readonly opaque: boolean
  readonly reason?: string
  /** Also run: unwrapped shells and wrapped inner commands (checked for prompt/forbidden rules only). */
  readonly alsoCheck: Argvs
  /** For opaque scripts: plain command prefixes seen inside, to let forbidden rules fire. */
  readonly hints: Argvs
}

const SHELLS = new Set(['bash', 'sh', 'zsh'])
const SCRIPT_FLAGS = new Set(['-c', '-lc'])
const MAX_NESTING = 3
/**
 * Builtins that change how the *rest of the script* runs (`hash -p ./evil
 * git; git status` runs ./evil). A script using them is opaque: deciding
 * its segments one by one would decide the wrong programs.
 */
const SHELL_STATE = new Set(['hash', 'alias', 'unalias', 'enable', 'shopt', 'set', 'unset', 'source', '.', 'eval', 'trap', 'builtin', 'export', 'declare', 'typeset', 'local', 'readonly', 'coproc', 'function', 'fc'])

/** The script of a `bash -lc SCRIPT` style argv, or undefined when argv is not one. */
export function shellScriptOf(policy: Policy, argv: readonly string[]): string | undefined {
  if (argv.length !== 3 || !SCRIPT_FLAGS.has(argv[1] as string)) return undefined
  const name = trustedProgramName(policy, argv[0] as string)
  return name !== undefined && SHELLS.has(name) ? argv[2] : undefined
}

export function splitCommand(parser: Parser, policy: Policy, argv: readonly string[], depth = 0): CommandSplit {
  const script = shellScriptOf(policy, argv)
  if (script === undefined) return { segments: [[...argv]], opaque: false, alsoCheck: innerChecks(parser, policy, argv, depth), hints: [] }
  if (depth >= MAX_NESTING) return opaque(argv, 'shell wrappers nested too deeply', [])
  const split = splitScript(parser, script)
  if (split.opaque) return opaque(argv, split.reason, split.hints)
  const stateful = split.commands.find((command) => SHELL_STATE.has(command[0] as string))
  if (stateful) return opaque(argv, `shell builtin '${stateful[0]}' changes how the rest of the script runs`, split.commands)
  const segments: (readonly string[])[] = []
  const alsoCheck: (readonly string[])[] = [[...argv]]
  for (const command of split.commands) {
    const inner = splitCommand(parser, policy, command, depth + 1)
    if (inner.opaque) return opaque(argv, `inside ${command[0]} ${command[1]}: ${inner.reason}`, [...split.commands, ...inner.hints])
    append(segments, inner.segments)
    append(alsoCheck, inner.alsoCheck)
  }
  return { segments, opaque: false, alsoCheck, hints: [] }
}

/** `target.push(...items)` without the spread call, which costs V8 more than the loop. */
function append<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item)
}

/** What a wrapper such as `env`/`sudo` runs, split like any other command. */
function innerChecks(parser: Parser, policy: Policy, argv: readonly string[], depth: number): Argvs {
  const inner = depth < MAX_NESTING ? innerCommand(argv) : undefined
  if (!inner) return []
  const split = splitCommand(parser, policy, inner, depth + 1)
  return [...split.segments, ...split.alsoCheck, ...split.hints]
}

/** Hints may be the split cache's own arrays: they leave as copies (shell-script.ts). */
function opaque(argv: readonly string[], reason: string, hints: Argvs): CommandSplit {
  return { segments: [[...argv]], opaque: true, reason, alsoCheck: [], hints: hints.map((hint) => [...hint]) }
}
