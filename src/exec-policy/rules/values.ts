/**
 * Runtime values of the rules language, each remembering where it was
 * written so a type error or failing example points at the right column.
 */
import { PolicyError } from '../../errors.js'
import type { Pos } from './ast.js'

export type Value =
  | { readonly t: 'str'; readonly v: string; readonly pos: Pos }
  | { readonly t: 'int'; readonly v: number; readonly pos: Pos }
  | { readonly t: 'bool'; readonly v: boolean; readonly pos: Pos }
  | { readonly t: 'none'; readonly pos: Pos }
  | { readonly t: 'list'; readonly items: readonly Value[]; readonly pos: Pos }
  | { readonly t: 'builtin'; readonly name: string; readonly pos: Pos }

/** Starlark's names for the types, as used in error messages. */
export function typeName(v: Value): string {
  switch (v.t) {
    case 'str':
      return 'string'
    case 'int':
      return 'int'
    case 'bool':
      return 'bool'
    case 'none':
      return 'NoneType'
    case 'list':
      return 'list'
    case 'builtin':
      return 'builtin_function'
  }
}

export function errorAt(file: string, pos: Pos, message: string): PolicyError {
  return new PolicyError(message, { where: `${file}:${pos.line}:${pos.column}` })
}

/** Checks with a fixed file, so builtins can say `check.string(v, 'decision')`. */
export class TypeCheck {
  constructor(readonly file: string) {}

  fail(pos: Pos, message: string): PolicyError {
    return errorAt(this.file, pos, message)
  }

  string(v: Value, what: string): string {
    if (v.t !== 'str') throw this.fail(v.pos, `${what} must be a string, got ${typeName(v)}`)
    return v.v
  }

  list(v: Value, what: string): readonly Value[] {
    if (v.t !== 'list') throw this.fail(v.pos, `${what} must be a list, got ${typeName(v)}`)
    return v.items
  }

  /** A non-empty list of strings. */
  strings(v: Value, what: string): string[] {
    const items = this.list(v, what)
    if (items.length === 0) throw this.fail(v.pos, `${what} cannot be empty`)
    return items.map((item) => this.string(item, `${what} element`))
  }

  /** An optional string argument: absent or None means "not given". */
  optionalString(v: Value | undefined, what: string): string | undefined {
    if (v === undefined || v.t === 'none') return undefined
    return this.string(v, what)
  }
}
