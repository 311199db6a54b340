/**
 * Turns an argv into the commands that would actually run. `bash|sh|zsh
 * -c|-lc SCRIPT` (bare name, a system path, or a path host_executable
 * lists) is unwrapped by parsing SCRIPT; nested wrappers are unwrapped too,
 * up to a small depth. Any other argv is one segment, taken literally.
 */
import type { Parser } from 'web-tree-sitter'
import { trustedProgramName } from './program-name.js'
import { splitScript } from './shell-script.js'
import type { Policy } from './types.js'

export interface CommandSplit {
  /** The commands to decide; for an opaque script, just the original argv. */
  readonly segments: readonly string[][]
  readonly opaque: boolean
  readonly reason?: string
  /** Shell wrappers that were unwrapped (their own rules may still forbid them). */
  readonly wrappers: readonly string[][]
  /** For opaque scripts: plain command prefixes seen inside, to let forbidden rules fire. */
  readonly hints: readonly (readonly string[])[]
}

const SHELLS = new Set(['bash', 'sh', 'zsh'])
const SCRIPT_FLAGS = new Set(['-c', '-lc'])
const MAX_NESTING = 3

/** The script of a `bash -lc SCRIPT` style argv, or undefined when argv is not one. */
export function shellScriptOf(policy: Policy, argv: readonly string[]): string | undefined {
  if (argv.length !== 3 || !SCRIPT_FLAGS.has(argv[1] as string)) return undefined
  const name = trustedProgramName(policy, argv[0] as string)
  return name !== undefined && SHELLS.has(name) ? argv[2] : undefined
}

export function splitCommand(parser: Parser, policy: Policy, argv: readonly string[], depth = 0): CommandSplit {
  const script = shellScriptOf(policy, argv)
  if (script === undefined) return { segments: [[...argv]], opaque: false, wrappers: [], hints: [] }
  if (depth >= MAX_NESTING) return opaque(argv, 'shell wrappers nested too deeply', [])
  const split = splitScript(parser, script)
  if (split.opaque) return opaque(argv, split.reason, split.hints)
  const segments: string[][] = []
  const wrappers: string[][] = [[...argv]]
  for (const command of split.commands) {
    const inner = splitCommand(parser, policy, command, depth + 1)
    if (inner.opaque) return opaque(argv, `inside ${command[0]} ${command[1]}: ${inner.reason}`, [...split.commands, ...inner.hints])
    segments.push(...inner.segments)
    wrappers.push(...inner.wrappers)
  }
  return { segments, opaque: false, wrappers, hints: [] }
}

function opaque(argv: readonly string[], reason: string, hints: readonly (readonly string[])[]): CommandSplit {
  return { segments: [[...argv]], opaque: true, reason, wrappers: [], hints }
}
