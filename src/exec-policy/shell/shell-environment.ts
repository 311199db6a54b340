/**
 * Environment variables that change what a shell runs before or instead of
 * its script: the script cordon reads is then not what runs, so a shell
 * started with one of them set is opaque.
 *
 * - `BASH_FUNC_name%%`: an exported function; `bash -c 'ls'` runs it instead of ls.
 * - `BASH_ENV` (bash), `ENV` (sh/ksh; interactive dash, posix-mode bash): a file sourced first.
 * - `ZDOTDIR` (zsh): where `.zshenv` is read from, for every zsh.
 * - `SHELLOPTS`, `BASHOPTS`: bash's set -o / shopt options, read at start-up (e.g. `expand_aliases`).
 * - `PS4`: expanded (with `$(…)`) for every traced command under `-x`.
 * - `FPATH`: ksh looks undefined commands up as function files there.
 */
const NAMES = new Set(['BASH_ENV', 'ENV', 'ZDOTDIR', 'SHELLOPTS', 'BASHOPTS', 'PS4', 'FPATH'])

/** The first variable among `names` that changes what a shell runs, if any. */
export function shellChangingVariable(names: Iterable<string>): string | undefined {
  for (const name of names) if (NAMES.has(name) || name.startsWith('BASH_FUNC_')) return name
  return undefined
}

/** The same for `NAME=value` words (env's assignments). */
export function shellChangingAssignment(words: readonly string[]): string | undefined {
  return shellChangingVariable(words.filter((w) => w.includes('=')).map((w) => w.slice(0, w.indexOf('='))))
}
