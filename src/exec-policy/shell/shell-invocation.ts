/**
 * Reading a shell's command line (`bash -lc SCRIPT`, `sh -ec -- SCRIPT x`,
 * `bash --norc -o pipefail -c SCRIPT`, `dash -c`, `zsh -f -c`, …) the way
 * the shell does, so the script it runs is the script cordon decides.
 *
 * All of bash, dash, zsh, ksh/mksh and busybox sh take single-letter options
 * in clusters (`-ec`), `+` to turn one off, `-o NAME` / `+o NAME` (and
 * bash's `-O`/`+O` shopt) whose name is the next word, and end options at
 * `--`, `-` or the first word that is not an option. `-c` is a flag: the
 * script is the first non-option word, wherever `-c` stood; the words after
 * it become `$0`, `$1`… and cannot change the script (its `$` are refused).
 * Long options (`--norc`) come first in bash and may come anywhere in zsh.
 *
 * Only options known not to change how the script is read or what runs are
 * accepted; any other makes the command opaque (asked). Refused on purpose:
 * `-i` (interactive: rc files, aliases, history expansion), `-s` (script from
 * stdin), bash's `-k` (assignments anywhere in a command go to the
 * environment, so `ls X=1` runs `ls`), `-H` (history expansion),
 * `--debugger` (runs a debugger profile first), zsh's `--emulate`, and
 * every option name not listed.
 */

export type ShellInvocation =
  | { readonly kind: 'script'; readonly script: string }
  | { readonly kind: 'refused'; readonly reason: string }
  /** No `-c`: a script file or stdin; decided as written (heuristics flag a shell reading stdin). */
  | { readonly kind: 'not-a-script' }

interface ShellGrammar {
  /** Letters accepted in `-…`/`+…` clusters besides `c` (each: bash(1), dash(1), zsh(1) zshoptions, mksh(1), busybox). */
  readonly letters: string
  /** Option names accepted after `-o`/`+o` (lower case, `_` and `-` removed: zsh ignores both, bash has no such names). */
  readonly optionNames: ReadonlySet<string>
  /** bash's `-O`/`+O NAME` shopt names. */
  readonly shoptNames?: ReadonlySet<string>
  /** Long options without a value; `valued` take the next word. */
  readonly longFlags: ReadonlySet<string>
  readonly longValued?: ReadonlySet<string>
  /** zsh reads long options anywhere among the options; bash only before the first single-letter option. */
  readonly longAnywhere?: boolean
}

/** `set -o` names that change neither the reading of the script nor what it runs (errexit, xtrace, …). */
const OPTION_NAMES = new Set(['errexit', 'nounset', 'xtrace', 'verbose', 'pipefail', 'noglob', 'noexec', 'noclobber', 'allexport', 'physical', 'errtrace', 'functrace', 'hashall', 'notify', 'ignoreeof', 'braceexpand', 'nolog', 'privileged', 'posix', 'monitor', 'emacs', 'vi'])
/** zsh's own names for the same, plus rc-file switches (the user's own files). */
const ZSH_OPTION_NAMES = new Set([...OPTION_NAMES, 'norcs', 'noglobalrcs', 'rcs', 'globalrcs', 'login', 'nomatch', 'nonomatch', 'nullglob', 'nounset', 'unset', 'exec', 'noexec', 'errreturn'])
/** shopt names that only widen or narrow globbing (a glob is already "any matching words") or never matter in a script. */
const SHOPT_NAMES = new Set(['extglob', 'nullglob', 'dotglob', 'globstar', 'failglob', 'nocaseglob', 'nocasematch', 'lastpipe', 'inheriterrexit', 'xpgecho', 'globasciiranges'])

const POSIX_LETTERS = 'aCefnuvxlbpmE'

const BASH: ShellGrammar = {
  letters: `${POSIX_LETTERS}hBPTD`,
  optionNames: OPTION_NAMES,
  shoptNames: SHOPT_NAMES,
  longFlags: new Set(['norc', 'noprofile', 'login', 'posix', 'restricted', 'noediting', 'verbose', 'dump-strings', 'dump-po-strings', 'help', 'version', 'pretty-print']),
  // Read by interactive shells only, and -i is refused.
  longValued: new Set(['rcfile', 'init-file']),
}
const DASH: ShellGrammar = { letters: `${POSIX_LETTERS}IVq`, optionNames: OPTION_NAMES, longFlags: new Set() }
const ZSH: ShellGrammar = {
  // zsh's letters are its own: -f is NO_RCS, -d NO_GLOBAL_RCS (zshoptions(1) "Single letter options").
  letters: 'efnuvxldX',
  optionNames: ZSH_OPTION_NAMES,
  longFlags: new Set(['norcs', 'noglobalrcs', 'login', 'errexit', 'xtrace', 'verbose', 'nounset', 'noexec', 'pipefail', 'help', 'version']),
  longAnywhere: true,
}
const KSH: ShellGrammar = { letters: `${POSIX_LETTERS}rh`, optionNames: OPTION_NAMES, longFlags: new Set() }

/** Shell names (basenames) and how they read their command line. busybox's applets reach here through wrappers.ts. */
export const SHELL_GRAMMARS: ReadonlyMap<string, ShellGrammar> = new Map([
  ['bash', BASH],
  ['sh', DASH], // dash on Debian/Ubuntu, bash on Fedora, busybox on Alpine: the letters are common to all three
  ['dash', DASH],
  ['ash', DASH],
  ['hush', DASH],
  ['zsh', ZSH],
  ['ksh', KSH],
  ['mksh', KSH],
  ['lksh', KSH],
  ['ksh93', KSH],
  ['pdksh', KSH],
])

export function isShellName(name: string): boolean {
  return SHELL_GRAMMARS.has(name)
}

/** How the shell `name` (a key of SHELL_GRAMMARS) reads `args` (its argv after argv[0]). */
export function readShellInvocation(name: string, args: readonly string[]): ShellInvocation {
  const g = SHELL_GRAMMARS.get(name)
  if (!g) return { kind: 'not-a-script' }
  let command = false
  let letters = false
  let i = 0
  for (; i < args.length; i++) {
    const a = args[i] as string
    if (a === '--' || a === '-') {
      i++
      break
    }
    if (a.startsWith('--')) {
      if (letters && !g.longAnywhere) break // bash: `--x` after single-letter options is the script name
      const long = normalise(a.slice(2))
      if (g.longValued?.has(a.slice(2))) i++
      else if (!g.longFlags.has(g === ZSH ? long : a.slice(2))) return refused(`${name} option ${a}`)
      continue
    }
    if (a.length < 2 || (a[0] !== '-' && a[0] !== '+')) break
    letters = true
    for (const letter of a.slice(1)) {
      if (letter === 'c') command = true
      else if (letter === 'o' || (letter === 'O' && g.shoptNames)) {
        const value = args[++i]
        if (value === undefined) return refused(`${name} -${letter} without a name`)
        const names = letter === 'o' ? g.optionNames : (g.shoptNames as ReadonlySet<string>)
        if (!names.has(normalise(value))) return refused(`${name} -${letter} ${value}`)
      } else if (!g.letters.includes(letter)) {
        return refused(`${name} option -${letter}`)
      }
    }
  }
  if (!command) return { kind: 'not-a-script' }
  const script = args[i]
  return script === undefined ? refused(`${name} -c without a script`) : { kind: 'script', script }
}

function normalise(option: string): string {
  return option.toLowerCase().replace(/[-_]/g, '')
}

function refused(what: string): ShellInvocation {
  return { kind: 'refused', reason: `${what}: cordon cannot tell how it changes what the script runs` }
}
