/**
 * Evaluates a parsed rules file: binds top-level variables, computes list and
 * string values, and calls builtins with Starlark argument binding
 * (positional parameters in declared order, then keywords).
 */
import type { Arg, Expr, Pos, Stmt } from './ast.js'
import { typeName, TypeCheck, type Value } from './values.js'

export interface Param {
  readonly name: string
  readonly required: boolean
}

export interface Builtin {
  readonly params: readonly Param[]
  /** Receives arguments by parameter name, already bound; returns nothing (rules are collected). */
  call(args: ReadonlyMap<string, Value>, callPos: Pos, check: TypeCheck): void
}

export function evaluate(stmts: readonly Stmt[], file: string, builtins: ReadonlyMap<string, Builtin>): void {
  new Evaluator(file, builtins).run(stmts)
}

class Evaluator {
  private readonly globals = new Map<string, Value>()
  private readonly check: TypeCheck

  constructor(
    file: string,
    private readonly builtins: ReadonlyMap<string, Builtin>,
  ) {
    this.check = new TypeCheck(file)
  }

  run(stmts: readonly Stmt[]): void {
    for (const stmt of stmts) {
      if (stmt.kind === 'expr') {
        this.eval(stmt.expr)
        continue
      }
      if (this.globals.has(stmt.name) || this.builtins.has(stmt.name) || isConstant(stmt.name)) {
        throw this.check.fail(stmt.pos, `cannot reassign '${stmt.name}'`)
      }
      this.globals.set(stmt.name, this.eval(stmt.value))
    }
  }

  private eval(expr: Expr): Value {
    switch (expr.kind) {
      case 'str':
        return { t: 'str', v: expr.value, pos: expr.pos }
      case 'int':
        return { t: 'int', v: expr.value, pos: expr.pos }
      case 'list':
        return { t: 'list', items: expr.items.map((item) => this.eval(item)), pos: expr.pos }
      case 'name':
        return this.lookup(expr.name, expr.pos)
      case 'add':
        return this.sum(expr)
      case 'call':
        return this.call(expr.callee, expr.args, expr.pos)
    }
  }

  private lookup(name: string, pos: Pos): Value {
    if (name === 'None') return { t: 'none', pos }
    if (name === 'True' || name === 'False') return { t: 'bool', v: name === 'True', pos }
    const value = this.globals.get(name)
    if (value) return value
    if (this.builtins.has(name)) return { t: 'builtin', name, pos }
    throw this.check.fail(pos, `name '${name}' is not defined`)
  }

  /** `a + b + c` parses left-deep; walk the spine iteratively so a long chain cannot overflow the stack. */
  private sum(expr: Expr & { kind: 'add' }): Value {
    const spine: (Expr & { kind: 'add' })[] = []
    let node: Expr = expr
    while (node.kind === 'add') {
      spine.push(node)
      node = node.left
    }
    let value = this.eval(node)
    for (let i = spine.length - 1; i >= 0; i--) {
      const step = spine[i] as Expr & { kind: 'add' }
      value = this.add(value, this.eval(step.right), step.pos)
    }
    return value
  }

  private add(left: Value, right: Value, pos: Pos): Value {
    if (left.t === 'str' && right.t === 'str') return { t: 'str', v: left.v + right.v, pos: left.pos }
    if (left.t === 'list' && right.t === 'list') return { t: 'list', items: [...left.items, ...right.items], pos: left.pos }
    if (left.t === 'int' && right.t === 'int') return { t: 'int', v: left.v + right.v, pos: left.pos }
    throw this.check.fail(pos, `unsupported operand types for +: ${typeName(left)} and ${typeName(right)}`)
  }

  private call(calleeExpr: Expr, args: readonly Arg[], pos: Pos): Value {
    if (calleeExpr.kind === 'name' && !this.globals.has(calleeExpr.name) && !this.builtins.has(calleeExpr.name)) {
      throw this.check.fail(calleeExpr.pos, `unknown function '${calleeExpr.name}'`)
    }
    const callee = this.eval(calleeExpr)
    if (callee.t !== 'builtin') throw this.check.fail(pos, `${typeName(callee)} is not callable`)
    const builtin = this.builtins.get(callee.name) as Builtin
    builtin.call(this.bind(callee.name, builtin.params, args, pos), pos, this.check)
    return { t: 'none', pos }
  }

  private bind(fn: string, params: readonly Param[], args: readonly Arg[], pos: Pos): Map<string, Value> {
    const bound = new Map<string, Value>()
    let positional = 0
    let sawKeyword = false
    for (const arg of args) {
      if (arg.name === undefined) {
        if (sawKeyword) throw this.check.fail(arg.pos, `${fn}(): positional argument after keyword argument`)
        const param = params[positional++]
        if (!param) throw this.check.fail(arg.pos, `${fn}() takes at most ${params.length} positional arguments`)
        bound.set(param.name, this.eval(arg.value))
        continue
      }
      sawKeyword = true
      if (!params.some((p) => p.name === arg.name)) {
        throw this.check.fail(arg.pos, `${fn}() got an unexpected keyword argument '${arg.name}'`)
      }
      if (bound.has(arg.name)) throw this.check.fail(arg.pos, `${fn}() got multiple values for argument '${arg.name}'`)
      bound.set(arg.name, this.eval(arg.value))
    }
    const missing = params.find((p) => p.required && !bound.has(p.name))
    if (missing) throw this.check.fail(pos, `${fn}() missing required argument '${missing.name}'`)
    return bound
  }
}

function isConstant(name: string): boolean {
  return name === 'None' || name === 'True' || name === 'False'
}
