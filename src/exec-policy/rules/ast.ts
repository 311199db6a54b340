/**
 * Syntax tree of the `.rules` Starlark subset: top-level assignments and
 * expression statements over strings, ints, names, lists, `+` and calls.
 */

/** 1-based position in the rules file. */
export interface Pos {
  readonly line: number
  readonly column: number
}

export type Expr =
  | { readonly kind: 'str'; readonly value: string; readonly pos: Pos }
  | { readonly kind: 'int'; readonly value: number; readonly pos: Pos }
  | { readonly kind: 'name'; readonly name: string; readonly pos: Pos }
  | { readonly kind: 'list'; readonly items: readonly Expr[]; readonly pos: Pos }
  | { readonly kind: 'call'; readonly callee: Expr; readonly args: readonly Arg[]; readonly pos: Pos }
  /** `pos` is the operator's position, where a type mismatch is reported. */
  | { readonly kind: 'add'; readonly left: Expr; readonly right: Expr; readonly pos: Pos }

export interface Arg {
  /** Keyword name, or undefined for a positional argument. */
  readonly name: string | undefined
  readonly pos: Pos
  readonly value: Expr
}

export type Stmt =
  | { readonly kind: 'assign'; readonly name: string; readonly pos: Pos; readonly value: Expr }
  | { readonly kind: 'expr'; readonly expr: Expr }
