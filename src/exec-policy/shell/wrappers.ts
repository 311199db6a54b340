/**
 * Programs that run another command given in their own argv (`env X=1 rm`,
 * `taskset 1 rm`, `flock f rm`, `setpriv rm`, `timeout 5 rm`, `xargs rm`…).
 * Rules are written for the inner command, so the engine also checks it: a
 * rule forbidding `rm` must not be dodged by a prefix. Looking through only
 * ever makes a decision stricter; the wrapper itself is still decided as
 * written.
 *
 * Each wrapper's option grammar is data (WRAPPERS in wrapper-table.ts, one
 * entry per program with its man page). Options are read as getopt_long
 * reads them with a leading `+` (all of these stop at the first non-option):
 * clustered short options, a value attached or in the next word, long
 * options by any unambiguous prefix, `--opt=value`. An option the table
 * does not know means cordon cannot tell where the command starts: the
 * result is `unknown`, and the caller asks when a ruled program appears.
 */
import type { GlobPattern } from './glob-pattern.js'
import { basenameOf } from './program-name.js'
import { WRAPPERS, type WrapperGrammar } from './wrapper-table.js'

export type Inner =
  /**
   * `argv.slice(offset)` runs. `unknownFrom` (an index into argv): from there
   * on cordon cannot see the words — xargs appends its input, and with `-I`
   * replaces the marker in a word.
   */
  | { readonly kind: 'argv'; readonly offset: number; readonly unknownFrom?: number }
  /** A shell command string runs (`flock f -c '…'`, `watch …`, `su -c '…'`). */
  | { readonly kind: 'script'; readonly script: string }
  /** This form runs no command (`command -v x`, `taskset -p 1 42`, `env` alone). */
  | { readonly kind: 'none' }
  | { readonly kind: 'unknown'; readonly reason: string }

/**
 * Shell builtins that change nothing about the command they run but its
 * argv[0] or its lookup (`command`, `exec`, and zsh's precommand modifiers):
 * in a script, the command is decided in their place. busybox is not one:
 * it is a file found through PATH, decided as written like any wrapper.
 */
const TRANSPARENT = new Set(['command', 'exec', 'noglob', 'nocorrect', '-'])

export function isTransparentWrapper(word: string): boolean {
  return TRANSPARENT.has(word)
}

/** The command `argv` runs on its behalf, one level deep, or undefined if argv[0] is not a wrapper. */
export function innerCommand(argv: readonly string[], globs?: readonly (GlobPattern | undefined)[]): Inner | undefined {
  const name = basenameOf(argv[0] ?? '')
  const grammar = WRAPPERS.get(name)
  if (!grammar) return undefined
  const inner = readWrapper(name, grammar, argv)
  // A glob before or at the inner program could expand to anything: options, another program.
  if (globs && inner.kind === 'argv' && globs.slice(0, inner.offset + 1).some((g) => g !== undefined)) {
    return { kind: 'unknown', reason: `a glob in the options of ${name}` }
  }
  return inner
}

interface Options {
  /** Options seen, by their canonical name (`-p` or `--pid`). */
  readonly seen: Set<string>
  /** Values of value-taking options, by canonical name. */
  readonly values: Map<string, string>
}

function readWrapper(name: string, g: WrapperGrammar, argv: readonly string[]): Inner {
  const opts: Options = { seen: new Set(), values: new Map() }
  let i = 1
  for (; i < argv.length; i++) {
    const a = argv[i] as string
    if (a === '--') {
      i++
      break
    }
    if (a === '-' && g.dashAlone) {
      opts.seen.add(g.dashAlone)
      continue
    }
    if (g.numericOption?.test(a)) continue // `nice -10 cmd`
    if (a.length < 2 || a[0] !== '-') break
    const step = a.startsWith('--') ? readLong(g, argv, i, opts) : readShort(g, argv, i, opts)
    if (typeof step === 'string') return { kind: 'unknown', reason: `${name} ${step}` }
    i = step
  }
  // env(1) and sudo(8) take any word holding `=` as NAME=VALUE, not only identifiers (`BASH_FUNC_ls%%=…`).
  if (g.assignments) while (i < argv.length && (argv[i] as string).includes('=')) i++
  return g.command(opts, argv, i)
}

/** `--name`, `--name=value`, `--name value`, by unambiguous prefix. Returns the index of the last word used, or why not. */
function readLong(g: WrapperGrammar, argv: readonly string[], i: number, opts: Options): number | string {
  const a = argv[i] as string
  const eq = a.indexOf('=')
  const given = a.slice(2, eq < 0 ? undefined : eq)
  const all = [...g.long.keys()]
  const exact = g.long.has(given) ? given : undefined
  const candidates = exact ? [exact] : all.filter((n) => n.startsWith(given))
  if (candidates.length !== 1) return `option ${a} (${candidates.length === 0 ? 'unknown' : 'ambiguous'})`
  const long = candidates[0] as string
  const arg = g.long.get(long) as 'flag' | 'value' | 'optional'
  const key = `--${long}`
  opts.seen.add(key)
  if (eq >= 0) {
    if (arg === 'flag') return `option ${a} (takes no value)`
    opts.values.set(key, a.slice(eq + 1))
    return i
  }
  if (arg !== 'value') return i
  const value = argv[i + 1]
  if (value === undefined) return `option ${a} without its value`
  opts.values.set(key, value)
  return i + 1
}

/** A cluster `-abc`, `-ovalue`, `-o value`. */
function readShort(g: WrapperGrammar, argv: readonly string[], i: number, opts: Options): number | string {
  const a = argv[i] as string
  for (let k = 1; k < a.length; k++) {
    const letter = a[k] as string
    const key = `-${letter}`
    opts.seen.add(key)
    if (g.flags.includes(letter)) continue
    const rest = a.slice(k + 1)
    if (g.optional.includes(letter)) {
      if (rest) opts.values.set(key, rest)
      return i
    }
    if (!g.values.includes(letter)) return `option -${letter}`
    if (rest) {
      opts.values.set(key, rest)
      return i
    }
    const value = argv[i + 1]
    if (value === undefined) return `option -${letter} without its value`
    opts.values.set(key, value)
    return i + 1
  }
  return i
}
