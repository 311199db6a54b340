/**
 * Globs in arguments. bash replaces a word holding an unquoted `*`, `?` or
 * `[…]` by the file names it matches (or leaves it as it is when none
 * does), so the argv that runs depends on the files present when it runs —
 * which an earlier command, or the agent, can choose. The policy therefore
 * treats a glob word as "any one or more words this pattern could match"
 * and needs, for every use, only an over-approximation of that set:
 *
 * - `*` matches anything, `?` any one character, and from a `[` on the rest
 *   matches anything (bracket expressions have corner cases — `[]a]`, `[!…]`,
 *   classes, collation — that a superset need not model). An unclosed `[`
 *   is refused before this (literal to bash, "bad pattern" to zsh);
 * - the match ignores case (`nocaseglob`), crosses `/` (`globstar`) and
 *   matches a leading `.` (`dotglob`): shell options or a login profile can
 *   turn those on, and a superset stays a superset under each of them.
 */
export interface GlobPattern {
  /** The word as bash would leave it when nothing matches. */
  readonly word: string
  /** Matches every word the glob could expand to (and more). */
  readonly regex: RegExp
  /** The glob could expand to a word starting with `-`: to an option. */
  readonly mayBeOption: boolean
}

const SPECIALS = /[\\^$.*+?()[\]{}|/]/g

/** The glob in a word (`value` and its same-length `skeleton`, quoted characters masked), or undefined if none. */
export function compileGlob(value: string, skeleton: string): GlobPattern | undefined {
  const star = skeleton.indexOf('*')
  const question = skeleton.indexOf('?')
  const bracket = skeleton.indexOf('[')
  if (star < 0 && question < 0 && bracket < 0) return undefined
  let source = ''
  let literal = 0
  for (let i = 0; i < value.length; i++) {
    const k = skeleton[i]
    if (k === '*' || k === '[') {
      source += escape(value.slice(literal, i)) + '[^]*'
      literal = i + 1
      if (k === '[') return finish(value, skeleton, source, true)
    } else if (k === '?') {
      source += escape(value.slice(literal, i)) + '[^]'
      literal = i + 1
    }
  }
  return finish(value, skeleton, source + escape(value.slice(literal)), false)
}

function finish(word: string, skeleton: string, source: string, open: boolean): GlobPattern {
  const regex = new RegExp(`^(?:${source})${open ? '' : '$'}`, 'iu')
  // A pattern can start with `-` when it starts with a wildcard, or with a literal `-`.
  const first = skeleton[0]
  const mayBeOption = first === '*' || first === '?' || first === '[' || word.startsWith('-')
  return { word, regex, mayBeOption }
}

function escape(text: string): string {
  return text.replace(SPECIALS, '\\$&')
}
