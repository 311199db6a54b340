/**
 * Reading a shell script the way the shell's own tokenizer does, for the
 * small language cordon decides on: simple commands made of words (bare,
 * single- or double-quoted, backslash-escaped, with globs), redirections to
 * files and fd duplications, joined by `&&`, `||`, `;`, `|` and newlines,
 * with comments. Anything else is refused with a reason, and the caller
 * treats the script as opaque.
 *
 * Why not the tree-sitter-bash tree: that grammar is not bash's tokenizer.
 * The differential test (test/unit/exec-policy/shell/differential.test.ts),
 * which runs generated scripts under bash, dash, busybox sh, zsh and mksh,
 * found it reading `ls\n\rm -rf src` as one command (`ls` with the arguments
 * `\n\rm -rf src`: bash runs `rm`), `r\<newline>m` as the two words `r` and
 * `m` (bash runs `rm`), and `ls a > f b` as a redirection to two files
 * (bash passes `b` to ls). This reader follows POSIX XCU 2.3 "Token
 * Recognition" and bash's parse.y for the same subset, character by
 * character, and it only accepts what every one of those shells reads the
 * same way (e.g. `&>` is a redirection in bash but `&` then `>` in dash, so
 * it is refused). The tree is still used for opaque scripts: script-hints.ts.
 *
 * What it refuses, and why, is listed in REFUSED below and in
 * docs/exec-policy.md; a refusal is never an error, only "ask".
 */
import type { SegmentRedirect } from '../types.js'
import type { GlobPattern } from './glob-pattern.js'
import { commandNameRefusal, wordGlob, type Word } from './script-words.js'

/**
 * Where a redirection sends a file descriptor: `fd` 0–9 (a multi-digit fd
 * is a redirection in bash but a word in dash, so it is refused); `op` `<`
 * read, `>` `>>` `>|` `<>` write (`<>` opens read-write and creates), `<&`
 * `>&` duplicate or close; `target` a path, or `N`, `N-`, `-` for the
 * duplications.
 */
export type Redirect = SegmentRedirect

/** One simple command as the shell will run it (before globbing). */
export interface ScriptCommand {
  readonly argv: readonly string[]
  /** Per word, the glob a word holds (absent when no word has one): bash replaces it by the names it matches. */
  readonly globs?: readonly (GlobPattern | undefined)[]
  readonly redirects?: readonly Redirect[]
}

export type ScriptRead =
  | { readonly opaque: false; readonly commands: readonly ScriptCommand[]; readonly operators: readonly Operator[] }
  | { readonly opaque: true; readonly reason: string }

/** What joins command i to command i + 1 (a newline counts as `;`). */
export type Operator = '&&' | '||' | ';' | '|'

const enum Ch {
  Tab = 9,
  Newline = 10,
  Space = 32,
  Bang = 33,
  DoubleQuote = 34,
  Hash = 35,
  Dollar = 36,
  Amp = 38,
  Quote = 39,
  LParen = 40,
  RParen = 41,
  Semicolon = 59,
  Less = 60,
  Greater = 62,
  Backslash = 92,
  Backtick = 96,
  Pipe = 124,
}

class Refused {
  constructor(readonly reason: string) {}
}

function refuseIf(reason: string | undefined): void {
  if (reason !== undefined) throw new Refused(reason)
}

/** The word's glob, if it holds one; refused if it holds an expansion or a form the shells read differently. */
function checkedGlob(word: Word): GlobPattern | undefined {
  const glob = wordGlob(word)
  if (typeof glob === 'string') throw new Refused(glob)
  return glob
}

export function readScript(src: string): ScriptRead {
  try {
    return new Reader(src).script()
  } catch (err) {
    if (err instanceof Refused) return { opaque: true, reason: err.reason }
    throw err
  }
}

class Reader {
  private i = 0
  private readonly commands: ScriptCommand[] = []
  private readonly operators: Operator[] = []

  constructor(private readonly src: string) {}

  script(): ScriptRead {
    this.skipBlankLines()
    if (this.i >= this.src.length) throw new Refused('empty script')
    for (;;) {
      this.commands.push(this.command())
      const op = this.operator()
      if (op === undefined) break
      this.operators.push(op)
    }
    return { opaque: false, commands: this.commands, operators: this.operators }
  }

  /** After a command: the operator that follows it, or undefined at the end of the script. */
  private operator(): Operator | undefined {
    const c = this.src.charCodeAt(this.i)
    if (this.i >= this.src.length) return undefined
    if (c === Ch.Newline || c === Ch.Semicolon) {
      this.i++
      // `a;;` is a case terminator and `a\n;` a syntax error: after `;` only blank lines may follow.
      if (c === Ch.Semicolon && this.src.charCodeAt(this.i) === Ch.Semicolon) throw new Refused("operator ';;'")
      this.skipBlankLines()
      return this.i >= this.src.length ? undefined : ';'
    }
    const two = this.src.slice(this.i, this.i + 2)
    let op: Operator
    if (two === '&&' || two === '||') op = two
    else if (c === Ch.Pipe && two !== '|&') op = '|'
    else throw new Refused(c === Ch.Amp ? "operator '&' (background)" : `operator '${two}'`)
    this.i += op.length
    this.skipBlankLines()
    if (this.i >= this.src.length) throw new Refused(`nothing after '${op}'`)
    return op
  }

  /** One simple command: words and redirections up to an operator, a newline or the end. */
  private command(): ScriptCommand {
    const argv: string[] = []
    let globs: (GlobPattern | undefined)[] | undefined
    let redirects: Redirect[] | undefined
    for (;;) {
      this.skipBlanks()
      const c = this.src.charCodeAt(this.i)
      if (this.i >= this.src.length || c === Ch.Newline || c === Ch.Semicolon || c === Ch.Pipe || c === Ch.Amp) break
      if (c === Ch.Hash) {
        this.skipComment()
        continue
      }
      if (c === Ch.LParen || c === Ch.RParen) throw new Refused(`'${String.fromCharCode(c)}' (subshell, function or pattern)`)
      if (c === Ch.Less || c === Ch.Greater) {
        ;(redirects ??= []).push(this.redirect(c === Ch.Less ? 0 : 1))
        continue
      }
      const start = this.i
      const word = this.word()
      const next = this.src.charCodeAt(this.i)
      if (next === Ch.Less || next === Ch.Greater) {
        // Digits straight before `<`/`>` are the fd it redirects (POSIX IO_NUMBER).
        if (!word.quoted && /^[0-9]+$/.test(word.value)) {
          // `2\<newline>>f`: bash and dash still read fd 2, zsh reads the word 2 (found by the differential test).
          if (this.i - start !== word.value.length) throw new Refused('line continuation inside a redirection')
          if (word.value.length > 1) throw new Refused(`fd number ${word.value} (bash redirects it, dash reads a word)`)
          ;(redirects ??= []).push(this.redirect(Number(word.value)))
          continue
        }
      }
      if (argv.length === 0) refuseIf(commandNameRefusal(word))
      const glob = checkedGlob(word)
      if (glob) {
        if (argv.length === 0) throw new Refused(`glob in the program name ${JSON.stringify(word.value)}`)
        globs ??= new Array<GlobPattern | undefined>(argv.length).fill(undefined)
      }
      if (globs) globs.push(glob)
      argv.push(word.value)
    }
    if (argv.length === 0) throw new Refused(redirects ? 'redirection without a command' : 'empty command')
    return globs ? (redirects ? { argv, globs, redirects } : { argv, globs }) : redirects ? { argv, redirects } : { argv }
  }

  /** At `<` or `>` (after an optional fd): the operator and its target word. */
  private redirect(fd: number): Redirect {
    const s = this.src
    const c = s.charCodeAt(this.i)
    const d = s.charCodeAt(this.i + 1)
    let op: Redirect['op']
    if (d === Ch.LParen) throw new Refused('process substitution')
    if (c === Ch.Less) {
      if (d === Ch.Less) throw new Refused('here-document or here-string')
      op = d === Ch.Amp ? '<&' : d === Ch.Greater ? '<>' : '<'
    } else {
      op = d === Ch.Greater ? '>>' : d === Ch.Amp ? '>&' : d === Ch.Pipe ? '>|' : '>'
      if (op === '>' && fd === 1 && d === Ch.Bang) throw new Refused("'>!' (zsh: overwrite despite noclobber; bash: a file named '!…')")
    }
    this.i += op.length
    if (op === '>>' && s.charCodeAt(this.i) === Ch.Bang) throw new Refused("'>>!' (zsh)")
    this.skipBlanks()
    const t = s.charCodeAt(this.i)
    if (this.i >= s.length || t === Ch.Newline || t === Ch.Semicolon || t === Ch.Pipe || t === Ch.Amp || t === Ch.Less || t === Ch.Greater || t === Ch.LParen || t === Ch.RParen || t === Ch.Hash) {
      throw new Refused(`'${op}' without a target`)
    }
    const word = this.word()
    if (checkedGlob(word)) throw new Refused(`glob in a redirection target ${JSON.stringify(word.value)} (bash expands it, dash does not)`)
    // A target glued to the next redirection: zsh reads `<1-5>` as a numeric glob where bash reads
    // `< 1-5` then `>`, and dash reads `>&2>&2` as `>&` missing its target, then `2>&2` (fuzz seed 6161).
    if (s.charCodeAt(this.i) === Ch.Greater || s.charCodeAt(this.i) === Ch.Less) throw new Refused('redirection target straight before another redirection')
    if (op === '<&' || op === '>&') {
      // `>&file` writes the file in bash and is an error in dash: only fds and `-` (close).
      if (word.quoted || !/^([0-9]-?|-)$/.test(word.value)) throw new Refused(`'${op}' to ${JSON.stringify(word.value)}: only a single-digit fd or '-'`)
    } else if (word.value === '') {
      throw new Refused('empty redirection target')
    }
    return { fd, op, target: word.value }
  }

  /** A word: runs of plain characters, quotes and escapes, up to an unquoted metacharacter. */
  private word(): Word {
    const s = this.src
    let value = ''
    let skeleton = ''
    let quoted = false
    for (;;) {
      const start = this.i
      while (this.i < s.length && isPlain(s.charCodeAt(this.i))) this.i++
      if (this.i > start) {
        const run = s.slice(start, this.i)
        value += run
        skeleton += run
      }
      if (this.i >= s.length) break
      const c = s.charCodeAt(this.i)
      if (c === Ch.Backslash) {
        const next = s[this.i + 1]
        if (next === undefined) throw new Refused('backslash at the end of the script')
        this.i += 2
        if (next === '\n') continue // line continuation: removed, the word goes on
        value += next
        skeleton += '_'
        quoted = true
      } else if (c === Ch.Quote) {
        const end = s.indexOf("'", this.i + 1)
        if (end < 0) throw new Refused('unterminated single quote')
        const body = s.slice(this.i + 1, end)
        value += body
        skeleton += '_'.repeat(body.length)
        quoted = true
        this.i = end + 1
      } else if (c === Ch.DoubleQuote) {
        const body = this.doubleQuoted()
        value += body
        skeleton += '_'.repeat(body.length)
        quoted = true
      } else if (c === Ch.Dollar || c === Ch.Backtick) {
        throw new Refused(c === Ch.Dollar ? 'expansion ($)' : 'command substitution (`)')
      } else {
        break // a blank or a metacharacter ends the word
      }
    }
    return { value, skeleton, quoted }
  }

  /** At `"`: the body's value. A backslash quotes only `$`, `` ` ``, `"`, `\` and newline there. */
  private doubleQuoted(): string {
    const s = this.src
    let value = ''
    for (let j = this.i + 1; j < s.length; j++) {
      const c = s.charCodeAt(j)
      if (c === Ch.DoubleQuote) {
        this.i = j + 1
        return value
      }
      if (c === Ch.Dollar || c === Ch.Backtick) throw new Refused(c === Ch.Dollar ? 'expansion ($) in double quotes' : 'command substitution (`) in double quotes')
      if (c === Ch.Backslash) {
        const next = s[j + 1]
        if (next === undefined) break
        if (next === '\n') {
          j++
          continue
        }
        if (next === '$' || next === '`' || next === '"' || next === '\\') {
          value += next
          j++
          continue
        }
      }
      value += s[j]
    }
    throw new Refused('unterminated double quote')
  }

  private skipBlanks(): void {
    const s = this.src
    for (;;) {
      const c = s.charCodeAt(this.i)
      if (c === Ch.Space || c === Ch.Tab) this.i++
      else if (c === Ch.Backslash && s.charCodeAt(this.i + 1) === Ch.Newline) this.i += 2
      else return
    }
  }

  /** Blanks, comments and newlines: what may come between commands after an operator. */
  private skipBlankLines(): void {
    for (;;) {
      this.skipBlanks()
      const c = this.src.charCodeAt(this.i)
      if (c === Ch.Newline) this.i++
      else if (c === Ch.Hash) this.skipComment()
      else return
    }
  }

  /** `#` at the start of a word: up to (not including) the newline. A backslash does not continue a comment. */
  private skipComment(): void {
    const end = this.src.indexOf('\n', this.i)
    this.i = end < 0 ? this.src.length : end
  }
}

/**
 * Characters that go into a word as they are. Everything else is handled by
 * word(): quotes, backslash, `$` and backtick, and the POSIX metacharacters
 * (blank, newline, `;` `&` `|` `(` `)` `<` `>`), which end a word.
 */
function isPlain(c: number): boolean {
  switch (c) {
    case Ch.Space:
    case Ch.Tab:
    case Ch.Newline:
    case Ch.Semicolon:
    case Ch.Amp:
    case Ch.Pipe:
    case Ch.LParen:
    case Ch.RParen:
    case Ch.Less:
    case Ch.Greater:
    case Ch.Backslash:
    case Ch.Quote:
    case Ch.DoubleQuote:
    case Ch.Dollar:
    case Ch.Backtick:
      return false
    default:
      return true
  }
}

