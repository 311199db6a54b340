/**
 * Splits a shell script (the SCRIPT of `bash -lc SCRIPT`) into the simple
 * commands it runs. script-reader.ts reads it the way the shell's tokenizer
 * does; a script it refuses is opaque (the caller asks), and then the
 * tree-sitter-bash tree supplies best-effort hints (script-hints.ts) so a
 * `forbidden` rule on a command inside still fires.
 *
 * Accepted: simple commands of words (quoted or not, globs in arguments),
 * redirections to files and fd duplications, joined by `&&`, `||`, `;`, `|`
 * or newlines, and comments. Refused: expansions (`$`, backticks, `~`,
 * braces), subshells, control flow, functions, `&`, `X=1 cmd`, here-docs,
 * and every form the supported shells read differently.
 */
import type { Node, Parser } from 'web-tree-sitter'
import { collectHints } from './script-hints.js'
import { readScript, type Operator, type ScriptCommand } from './script-reader.js'

export type ScriptSplit =
  | { readonly opaque: false; readonly commands: readonly ScriptCommand[]; readonly operators: readonly Operator[] }
  /** `hints`: best-effort argv prefixes found inside, so a forbidden rule can still fire. */
  | { readonly opaque: true; readonly reason: string; readonly hints: readonly (readonly string[])[] }

/** Longer scripts are not parsed at all (they are opaque); this bounds parse time. */
const MAX_SCRIPT_LENGTH = 64 * 1024
const CONTROL_CHARS = /[\x00-\x08\x0b-\x1f\x7f]/

/**
 * Recently split scripts. The split depends only on the script text and the
 * grammar, and agents repeat the same commands, so a small cache turns the
 * ~18 µs parse-and-walk into a map lookup.
 *
 * A split is kept only when its script comes back: the first time, the
 * script is just noted (null). Keeping the split of every one-off script made
 * the arrays and objects the walker allocates outlive young-generation GCs;
 * V8 then pretenures those allocation sites and grows the young generation,
 * and for thousands of decisions at a time each took twice as long. A
 * repeated script pays one more parse, on its second use.
 *
 * Entries are shared, so nothing may change them: the types are readonly,
 * and command-split.ts hands out copies, never the cached arrays. They are
 * not frozen: V8 leaves frozen arrays off its fast paths (find, for-of and
 * spread several times slower), which every decision would pay for.
 *
 * A full cache is emptied rather than kept in LRU order: evicting a Map's
 * oldest key walks over the holes that earlier deletions left at the front of
 * V8's table (up to a microsecond per miss), and a second, older map would
 * cost a second lookup per miss (half a microsecond once a parse has pushed
 * the map out of the CPU caches). Starting over costs a script still in use
 * its next two parses per CACHE_SIZE new scripts.
 */
const CACHE_SIZE = 512
const cache = new Map<string, ScriptSplit | null>()

export function splitScript(parser: Parser, script: string): ScriptSplit {
  const seen = cache.get(script)
  if (seen) return seen
  const split = parseAndSplit(parser, script)
  if (cache.size >= CACHE_SIZE) cache.clear()
  cache.set(script, seen === null ? split : null)
  return split
}

function parseAndSplit(parser: Parser, script: string): ScriptSplit {
  if (script.length > MAX_SCRIPT_LENGTH) return { opaque: true, reason: 'script too long to analyse', hints: [] }
  // bash keeps CR (and other controls) in words, tree-sitter-bash treats them as blanks, and the
  // shells disagree on some (zsh's NUL handling, ksh's ^V): refused rather than modelled.
  if (CONTROL_CHARS.test(script)) return { opaque: true, reason: 'control character in script', hints: [] }
  const read = readScript(script)
  if (read.opaque) return { opaque: true, reason: read.reason, hints: hintsOf(parser, script) }
  const why = builtinRefusal(read.commands)
  return why === undefined ? read : { opaque: true, reason: why, hints: read.commands.map((c) => c.argv) }
}

/**
 * Builtins that change how the *rest of the script* runs (`hash -p ./evil
 * git; git status` runs ./evil), or run commands of their own: a script
 * using them is opaque, since deciding its commands one by one would decide
 * the wrong programs. `r` is zsh's and ksh's "run a history line again"
 * (found by the differential test: zsh and mksh never run a program `r`).
 */
const SHELL_STATE = new Set([
  'hash', 'alias', 'unalias', 'enable', 'shopt', 'set', 'unset', 'source', '.', 'eval', 'trap', 'builtin', 'export', 'declare', 'typeset', 'local', 'readonly', 'coproc', 'function', 'fc', 'let', 'history',
  // bash builtins that run a command string of their own: `mapfile -C cb`, `compgen -C cmd`, `jobs -x cmd`, `bind -x`
  'mapfile', 'readarray', 'compgen', 'complete', 'compopt', 'jobs', 'bind',
  // zsh and ksh
  'r', 'hist', 'setopt', 'unsetopt', 'emulate', 'zmodload', 'autoload', 'disable', 'functions', 'unfunction', 'sched', 'zle', 'bindkey', 'integer', 'float', 'nameref', 'zpty', 'zcompile',
])

/**
 * bash evaluates an array subscript in a variable-name argument, and a
 * `$(…)` there runs: `test -v 'a[$(rm -rf src)]'` runs rm although every word
 * is quoted. These builtins take variable names; a `$` or backtick in any of
 * their arguments makes the script opaque.
 */
const NAME_TAKING = new Set(['test', 'printf', 'read', 'unset', 'wait', 'getopts', 'print', 'vared', 'zparseopts'])

function builtinRefusal(commands: readonly ScriptCommand[]): string | undefined {
  for (const { argv } of commands) {
    const name = argv[0] as string
    if (SHELL_STATE.has(name)) return `shell builtin '${name}' changes how the rest of the script runs`
    if (NAME_TAKING.has(name) && argv.some((a) => a.includes('$') || a.includes('`'))) return `'${name}' with a '$' or backtick in an argument (bash evaluates array subscripts in variable names)`
  }
  return undefined
}

/**
 * tree-sitter's error recovery is superlinear and runs on the caller's
 * thread: a 25 KB pipeline ending in `|` took 2 s, 50 KB 8 s, and 64 KB
 * aborted the wasm module for the rest of the process. Longer scripts get
 * no hints: they are opaque and asked all the same, only a `forbidden` rule
 * on a command inside no longer fires.
 */
const MAX_HINTED_LENGTH = 4 * 1024

/** Plain command prefixes inside a script we refused, from the tree-sitter tree (best effort; they only make decisions stricter). */
function hintsOf(parser: Parser, script: string): readonly (readonly string[])[] {
  if (script.length > MAX_HINTED_LENGTH) return []
  const tree = parser.parse(script)
  if (!tree) return []
  try {
    const root: Node = tree.rootNode
    return collectHints(root, script)
  } finally {
    tree.delete()
  }
}
