/**
 * Turning the text of tree-sitter-bash word nodes into the argv strings bash
 * would pass, and spotting the expansions that make a word's value unknowable
 * before it runs. A "skeleton" is the unquoted text with every escaped or
 * quoted character masked, so only characters bash would interpret remain.
 */

export interface WordValue {
  readonly value: string
  readonly skeleton: string
}

/** A bare word: `\x` is `x`, backslash-newline disappears. */
export function unescapeBareWord(raw: string): WordValue {
  if (!raw.includes('\\')) return { value: raw, skeleton: raw } // most words: nothing to unescape, no copy
  let value = ''
  let skeleton = ''
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i] as string
    if (ch !== '\\') {
      value += ch
      skeleton += ch
      continue
    }
    const next = raw[++i]
    if (next === undefined) return { value, skeleton: skeleton + '\\' } // dangling: refused below
    if (next !== '\n') {
      value += next
      skeleton += '_'
    }
  }
  return { value, skeleton }
}

/**
 * tree-sitter-bash's `number` token, which it produces in arguments too:
 * `-3` in `git log -3`, `-5` in `head -5`, `-1` in `ls -1`, `010`, `0x1F`, `64#zz`.
 * Outside arithmetic bash gives these no meaning: none of their characters
 * is special in a word (`#` starts a comment only at the start of a word,
 * and a number never starts with one), so the text is the argument. The
 * pattern is the grammar's own; a number whose base is an expansion
 * (`10#$x`, `10#$(id)`) has more text than it matches, and is refused.
 */
const PLAIN_NUMBER = /^-?(0x)?[0-9]+(#[0-9A-Za-z@_]+)?$/

export function numberWord(raw: string): WordValue | undefined {
  return PLAIN_NUMBER.test(raw) ? { value: raw, skeleton: raw } : undefined
}

/**
 * The body of a double-quoted string. Inside quotes a backslash only escapes
 * `$`, `` ` ``, `"`, `\` and newline. Returns undefined if an unescaped `$` or
 * backtick remains: tree-sitter should already have made it an expansion
 * node, and we refuse rather than trust that.
 */
export function unescapeDoubleQuoted(body: string): string | undefined {
  let value = ''
  for (let i = 0; i < body.length; i++) {
    const ch = body[i] as string
    if (ch === '$' || ch === '`') return undefined
    if (ch !== '\\') {
      value += ch
      continue
    }
    const next = body[i + 1]
    if (next !== undefined && '$`"\\\n'.includes(next)) {
      if (next !== '\n') value += next
      i++
    } else {
      value += ch
    }
  }
  return value
}

/** Characters that never belong unquoted in a plain word. */
const META = /[$`'"\\<>();&|*?]/
/** `[…]` is a glob bracket expression once closed. */
const GLOB_BRACKET = /\[[^\]]*\]/
/** `{a,b}` and `{1..3}` are brace expansions; `{}` or `@{u}` are not. */
const BRACE_EXPANSION = /\{[^{}]*(,|\.\.)[^{}]*\}/
/** `~` expands at the start of a word and after `=` (`--dir=~/x`). */
const TILDE = /(^|=)~/

/** Any of the above, as one regex: one scan of each word instead of four. */
const EXPANSION = new RegExp([META, GLOB_BRACKET, BRACE_EXPANSION, TILDE].map((re) => re.source).join('|'))

/** True when bash could rewrite this word (globbing, brace/tilde/parameter expansion…). */
export function wordHasExpansion(skeleton: string): boolean {
  return EXPANSION.test(skeleton)
}
