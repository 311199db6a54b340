/**
 * Tokenizer for the `.rules` Starlark subset. It tracks 1-based line/column
 * for every token, drops comments, joins lines inside brackets (as Starlark
 * does), and marks indentation at top level, which this block-less subset rejects.
 */
import { PolicyError } from '../../errors.js'
import { scanString, StringLiteralError } from './string-literal.js'

/** `indent`: leading whitespace before a top-level statement, which the parser rejects. */
export type TokenKind = 'name' | 'string' | 'int' | 'punct' | 'newline' | 'indent' | 'eof'

export interface Token {
  readonly kind: TokenKind
  /** Source text for names/punctuation/ints; the decoded value for strings. */
  readonly text: string
  readonly line: number
  readonly column: number
}

const PUNCT = new Set(['(', ')', '[', ']', '{', '}', ',', '=', '+', ':', '.', ';'])
const OPENERS = new Set(['(', '[', '{'])
const CLOSERS = new Set([')', ']', '}'])

export function tokenize(src: string, file: string): Token[] {
  return new Lexer(src, file).run()
}

class Lexer {
  private i = 0
  private line = 1
  private lineStart = 0
  private depth = 0
  private atLineStart = true
  private readonly tokens: Token[] = []

  constructor(
    private readonly src: string,
    private readonly file: string,
  ) {}

  run(): Token[] {
    while (this.i < this.src.length) this.step()
    this.push('eof', '', this.i)
    return this.tokens
  }

  private step(): void {
    const ch = this.src[this.i] as string
    if (ch === '\n' || ch === '\r') return this.newline()
    if (ch === ' ' || ch === '\t' || ch === '\f') return this.whitespace()
    if (ch === '#') return this.comment()
    this.atLineStart = false
    if (/[A-Za-z_]/.test(ch)) return this.word()
    if (/[0-9]/.test(ch)) return this.number()
    if (ch === '"' || ch === "'") return this.string(this.i, '')
    if (PUNCT.has(ch)) return this.punct(ch)
    if (ch === '\\') throw this.error('line continuation with \\ is not supported here', this.i)
    throw this.error(`unexpected character ${JSON.stringify(ch)}`, this.i)
  }

  private newline(): void {
    if (this.depth === 0 && !this.atLineStart) this.push('newline', '\n', this.i)
    const crlf = this.src[this.i] === '\r' && this.src[this.i + 1] === '\n'
    this.i += crlf ? 2 : 1
    this.line++
    this.lineStart = this.i
    this.atLineStart = true
  }

  private whitespace(): void {
    while (/[ \t\f]/.test(this.src[this.i] ?? '')) this.i++
    const next = this.src[this.i]
    const blank = next === undefined || next === '\n' || next === '\r' || next === '#'
    // Top-level statements start in column 1: there are no blocks to indent into.
    if (this.atLineStart && this.depth === 0 && !blank) this.push('indent', '', this.i)
  }

  private comment(): void {
    while (this.i < this.src.length && this.src[this.i] !== '\n' && this.src[this.i] !== '\r') this.i++
  }

  private word(): void {
    const start = this.i
    while (/[A-Za-z0-9_]/.test(this.src[this.i] ?? '')) this.i++
    const text = this.src.slice(start, this.i)
    const quote = this.src[this.i]
    if ((quote === '"' || quote === "'") && /^[rRbBfF]{1,2}$/.test(text)) {
      if (/[bBfF]/.test(text)) throw this.error(`${text}-prefixed strings are not supported`, start)
      return this.string(start, text)
    }
    this.push('name', text, start)
  }

  private number(): void {
    const start = this.i
    while (/[0-9A-Za-z_]/.test(this.src[this.i] ?? '')) this.i++
    const text = this.src.slice(start, this.i)
    if (!/^(0|[1-9][0-9]*)$/.test(text)) throw this.error(`invalid number ${JSON.stringify(text)}`, start)
    this.push('int', text, start)
  }

  private string(start: number, prefix: string): void {
    const quoteAt = start + prefix.length
    const quote = this.src[quoteAt] as string
    const triple = this.src.startsWith(quote.repeat(3), quoteAt)
    const bodyStart = quoteAt + (triple ? 3 : 1)
    try {
      const scan = scanString(this.src, bodyStart, quote, triple, prefix !== '')
      this.push('string', scan.value, start)
      this.advanceTo(scan.end)
    } catch (err) {
      if (err instanceof StringLiteralError) throw this.error(err.message, err.offset < 0 ? start : err.offset)
      throw err
    }
  }

  private punct(ch: string): void {
    if (OPENERS.has(ch)) this.depth++
    if (CLOSERS.has(ch)) this.depth = Math.max(0, this.depth - 1)
    this.push('punct', ch, this.i)
    this.i++
  }

  /** Move to `end`, keeping line/column right across newlines inside triple-quoted strings. */
  private advanceTo(end: number): void {
    for (let j = this.i; j < end; j++) {
      const c = this.src[j]
      if (c === '\n' || (c === '\r' && this.src[j + 1] !== '\n')) {
        this.line++
        this.lineStart = j + 1
      }
    }
    this.i = end
  }

  private push(kind: TokenKind, text: string, offset: number): void {
    this.tokens.push({ kind, text, line: this.line, column: offset - this.lineStart + 1 })
  }

  private error(message: string, offset: number): PolicyError {
    // Recount from the top: errors are rare, and an escape inside a triple-quoted
    // string may sit on a later line than the token start.
    const before = this.src.slice(0, offset)
    const line = before.split(/\r\n|\r|\n/).length
    const lastBreak = Math.max(before.lastIndexOf('\n'), before.lastIndexOf('\r'))
    return new PolicyError(message, { where: `${this.file}:${line}:${offset - lastBreak}` })
  }
}
