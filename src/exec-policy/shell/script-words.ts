/**
 * What a word read by script-reader.ts may hold. A word whose meaning
 * differs between bash, dash, busybox sh, zsh and mksh, or which the shell
 * expands in ways the policy cannot follow (tilde, braces), is refused with
 * a reason; a glob is returned for the policy to treat as "the names it
 * could match".
 */
import { compileGlob, type GlobPattern } from './glob-pattern.js'

/** A word as read: its value and its skeleton (unquoted characters kept, quoted or escaped ones as `_`, same length). */
export interface Word {
  readonly value: string
  readonly skeleton: string
  /** Any quoting or escape at all: such a word is never a reserved word, an fd number or an assignment. */
  readonly quoted: boolean
}

/**
 * Words that are reserved at the start of a command in bash, dash, zsh or
 * ksh (their grammar, not a program). `time` is not here: in bash it is a
 * keyword that runs the pipeline after it, in dash a program; either way the
 * commands that run are the words after it, which wrappers.ts unwraps.
 */
const RESERVED = new Set([
  '!', '{', '}', '[[', ']]', 'case', 'coproc', 'do', 'done', 'elif', 'else', 'esac', 'fi', 'for', 'function', 'if', 'in', 'select', 'then', 'until', 'while',
  // zsh and ksh
  'repeat', 'foreach', 'end', 'always', 'nocorrect',
])

/**
 * `NAME=`, `NAME+=`, `NAME[` at the start of a command: an assignment, not a
 * program. Letters are any script's: zsh takes `ïx=1` as an assignment in a
 * UTF-8 locale where bash runs a program `ïx=1` (npm run fuzz, seed 156631336).
 */
const ASSIGNMENT = /^[\p{L}_][\p{L}\p{N}_]*(\+?=|\[)/u
/** `{`…`,` or `..`…`}` unquoted: brace expansion (bash, zsh, ksh; dash leaves it). */
const BRACE_EXPANSION = /\{[^]*(,|\.\.)[^]*\}/
const NAMED_FD = /^\{[A-Za-z_][A-Za-z0-9_]*\}$/
/** `~` expands at the start of a word and, in bash, after `=` or `:` in words that look like assignments. */
const TILDE = /^~|[=:]~/

/** The first word of a command may not be grammar: a reserved word or an assignment. */
export function commandNameRefusal(word: Word): string | undefined {
  const sk = word.skeleton
  if (word.value === '') return "empty program name ('' or \"\")"
  // `%1` runs `fg %1` in bash and zsh; `{x}` is a group in zsh.
  if (word.value === '-') return "'-' as a command (zsh: a precommand modifier)"
  if (word.value.startsWith('%')) return `job spec ${JSON.stringify(word.value)} as a command (bash and zsh run fg)`
  if (sk.startsWith('{')) return `command starting with '{' (zsh reads a group)`
  // `X="a b" cmd` is an assignment too: only the name and `=` must be unquoted.
  if (ASSIGNMENT.test(sk)) return `assignment ${JSON.stringify(word.value)} (X=1 cmd)`
  if (!word.quoted && RESERVED.has(word.value)) return `reserved word '${word.value}'`
  return undefined
}

/** Why the shells would not read this word alike (an expansion, a zsh-only form), or its glob (undefined: a plain word). */
export function wordGlob(word: Word): GlobPattern | string | undefined {
  const sk = word.skeleton
  // zsh reads `{x} > f`, blanks and all, as "open f and put the fd in x"; bash and dash pass `{x}`.
  if (NAMED_FD.test(sk)) return `${JSON.stringify(word.value)} (zsh: a named fd before a redirection)`
  if (sk.charCodeAt(0) === 61 /* = */) return `word starting with '=' (zsh expands =cmd to its path)`
  if (TILDE.test(sk)) return `tilde expansion in ${JSON.stringify(word.value)}`
  if (sk.includes('{') && BRACE_EXPANSION.test(sk)) return `brace expansion in ${JSON.stringify(word.value)}`
  if (sk.includes('}') && !bracesBalanced(sk)) return `unmatched '}' in ${JSON.stringify(word.value)} (zsh: a syntax error)`
  // Every unquoted `[` needs an unquoted `]` after it (it is enough that the last one has).
  const bracket = sk.lastIndexOf('[')
  if (bracket >= 0 && sk.indexOf(']', bracket + 1) < 0) return `unclosed '[' in ${JSON.stringify(word.value)} (zsh: bad pattern; bash: a literal)`
  return compileGlob(word.value, sk)
}

/** Every unquoted `}` closes an unquoted `{` before it: zsh reads any other `}` as the end of a group. */
function bracesBalanced(skeleton: string): boolean {
  let depth = 0
  for (let i = 0; i < skeleton.length; i++) {
    const c = skeleton.charCodeAt(i)
    if (c === 123) depth++
    else if (c === 125 && --depth < 0) return false
  }
  return true
}
