/**
 * Recursive-descent parser for the `.rules` Starlark subset.
 *
 *   file   := (stmt? (NEWLINE | ';'))* EOF
 *   stmt   := NAME '=' expr | expr
 *   expr   := postfix ('+' postfix)*
 *   postfix:= atom ('(' args ')')*
 *   atom   := STRING | INT | NAME | '[' (expr (',' expr)* ','?)? ']' | '(' expr ')'
 *   args   := (arg (',' arg)* ','?)?      arg := NAME '=' expr | expr
 *
 * Anything outside it (def, if, for, load, dicts, tuples, comprehensions,
 * operators other than `+`) is a PolicyError at the offending token.
 */
import { PolicyError } from '../../errors.js'
import type { Arg, Expr, Pos, Stmt } from './ast.js'
import { tokenize, type Token } from './lexer.js'

/** Deeper nesting than this is not a policy anyone writes; stop before the JS stack does. */
const MAX_DEPTH = 64
const KEYWORDS = new Set(['def', 'if', 'elif', 'else', 'for', 'while', 'return', 'load', 'lambda', 'and', 'or', 'not', 'in', 'pass', 'break', 'continue'])

export function parseRules(src: string, file: string): Stmt[] {
  return new Parser(tokenize(src, file), file).parseFile()
}

class Parser {
  private at = 0
  private depth = 0

  constructor(
    private readonly tokens: Token[],
    private readonly file: string,
  ) {}

  parseFile(): Stmt[] {
    const stmts: Stmt[] = []
    for (;;) {
      while (this.isToken(';') || this.peek().kind === 'newline') this.at++
      if (this.peek().kind === 'eof') return stmts
      if (this.peek().kind === 'indent') throw this.errorAt(this.peek(), 'unexpected indentation')
      stmts.push(this.statement())
      const end = this.peek().kind
      if (!this.isToken(';') && end !== 'newline' && end !== 'eof') throw this.unexpected('end of statement')
    }
  }

  private statement(): Stmt {
    const tok = this.peek()
    const next = this.tokens[this.at + 1]
    if (tok.kind === 'name' && next?.kind === 'punct' && next.text === '=') {
      this.checkNotKeyword(tok)
      this.at += 2
      return { kind: 'assign', name: tok.text, pos: posOf(tok), value: this.expr() }
    }
    return { kind: 'expr', expr: this.expr() }
  }

  private expr(): Expr {
    if (++this.depth > MAX_DEPTH) throw this.errorAt(this.peek(), `nesting deeper than ${MAX_DEPTH} levels`)
    let left = this.postfix()
    while (this.isToken('+')) {
      const op = this.next()
      left = { kind: 'add', left, right: this.postfix(), pos: posOf(op) }
    }
    this.depth--
    return left
  }

  private postfix(): Expr {
    let expr = this.atom()
    while (this.isToken('(')) {
      this.next()
      expr = { kind: 'call', callee: expr, args: this.args(), pos: expr.pos }
    }
    if (this.isToken('.')) throw this.errorAt(this.peek(), 'attribute access is not supported')
    if (this.isToken('[')) throw this.errorAt(this.peek(), 'indexing is not supported')
    return expr
  }

  private atom(): Expr {
    const tok = this.peek()
    const pos = posOf(tok)
    if (tok.kind === 'string') return this.take({ kind: 'str', value: tok.text, pos })
    if (tok.kind === 'int') return this.take({ kind: 'int', value: Number(tok.text), pos })
    if (tok.kind === 'name') {
      this.checkNotKeyword(tok)
      return this.take({ kind: 'name', name: tok.text, pos })
    }
    if (this.isToken('[')) {
      this.next()
      return this.list(tok)
    }
    if (this.isToken('(')) {
      this.next()
      const inner = this.expr()
      if (this.isToken(',')) throw this.errorAt(this.peek(), 'tuples are not supported; use a list')
      this.expect(')')
      return inner
    }
    if (this.isToken('{')) throw this.errorAt(tok, 'dicts are not supported')
    throw this.unexpected('an expression')
  }

  private list(open: Token): Expr {
    const items: Expr[] = []
    while (!this.isToken(']')) {
      items.push(this.expr())
      if (this.isToken('for')) throw this.errorAt(this.peek(), 'comprehensions are not supported')
      if (!this.isToken(',')) break
      this.next()
    }
    this.expect(']')
    return { kind: 'list', items, pos: posOf(open) }
  }

  private args(): Arg[] {
    const args: Arg[] = []
    while (!this.isToken(')')) {
      args.push(this.arg())
      if (!this.isToken(',')) break
      this.next()
    }
    this.expect(')')
    return args
  }

  private arg(): Arg {
    const tok = this.peek()
    const next = this.tokens[this.at + 1]
    if (tok.kind === 'name' && next?.kind === 'punct' && next.text === '=') {
      this.checkNotKeyword(tok)
      this.at += 2
      return { name: tok.text, pos: posOf(tok), value: this.expr() }
    }
    const value = this.expr()
    return { name: undefined, pos: value.pos, value }
  }

  private checkNotKeyword(tok: Token): void {
    if (KEYWORDS.has(tok.text)) throw this.errorAt(tok, `'${tok.text}' is not supported in rules files`)
  }

  private expect(punct: string): void {
    if (!this.isToken(punct)) throw this.unexpected(`'${punct}'`)
    this.next()
  }

  private isToken(text: string): boolean {
    const tok = this.peek()
    return (tok.kind === 'punct' || tok.kind === 'name') && tok.text === text
  }

  private peek(): Token {
    return this.tokens[this.at] ?? (this.tokens[this.tokens.length - 1] as Token)
  }

  /** Consume the current token and return `expr` built from it. */
  private take(expr: Expr): Expr {
    this.next()
    return expr
  }

  private next(): Token {
    const tok = this.peek()
    if (this.at < this.tokens.length - 1) this.at++
    return tok
  }

  private unexpected(wanted: string): PolicyError {
    const tok = this.peek()
    return this.errorAt(tok, `expected ${wanted}, found ${describe(tok)}`)
  }

  private errorAt(tok: Token, message: string): PolicyError {
    return new PolicyError(message, { where: `${this.file}:${tok.line}:${tok.column}` })
  }
}

function posOf(tok: Token): Pos {
  return { line: tok.line, column: tok.column }
}

function describe(tok: Token): string {
  if (tok.kind === 'eof') return 'end of file'
  if (tok.kind === 'newline') return 'end of line'
  if (tok.kind === 'indent') return 'indentation'
  if (tok.kind === 'string') return 'a string'
  return `'${tok.text}'`
}
