/**
 * apply_patch's typed errors. Both are PolicyErrors (`E_POLICY`: bad
 * input, nothing was written) with fields a caller or the model can act
 * on: where in the patch, what was expected, what was found.
 */
import { PolicyError } from '../../errors.js'
import { quote } from '../../orchestrator/text.js'

/** The patch text does not follow the grammar (grammar.ts). */
export class PatchParseError extends PolicyError {
  /** 1-based line of the patch. */
  readonly line: number
  /** What the grammar allows here, in words. */
  readonly expected: string
  /** The line found (bounded), or `end of patch`. */
  readonly found: string
  constructor(line: number, expected: string, found: string) {
    super(`expected ${expected}, found ${found}`, { where: `patch line ${line}` })
    Object.defineProperty(this, 'name', { value: 'PatchParseError', writable: true, enumerable: false, configurable: true })
    this.line = line
    this.expected = expected
    this.found = found
  }
}

/**
 * Why a parsed patch does not fit the files: `missing` (an update or delete
 * target is not a regular file), `exists` (an add or move target is there
 * already), `context` (a hunk's lines are not in the file), `ambiguous` (they
 * are, more than once, with nothing to tell which), `unreadable` (the file
 * could not be read, or the profile does not let commands read it, or the
 * patch would read more than its budget), `duplicate` (the patch touches
 * the file twice, under one name or through a hard link), `unshowable`
 * (where the path resolves holds a control or bidi character), `changed`
 * (the path changed while it was verified: a symlink was swapped in).
 */
export type PatchVerifyKind = 'missing' | 'exists' | 'context' | 'ambiguous' | 'unreadable' | 'duplicate' | 'unshowable' | 'changed'

export class PatchVerifyError extends PolicyError {
  readonly kind: PatchVerifyKind
  /** The file, as the patch names it, and resolved. */
  readonly path: string
  readonly resolved: string
  /** 1-based line of the patch the problem is at (the hunk, or the file operation). */
  readonly line: number
  /** 1-based lines of the file where the hunk's lines occur (`ambiguous`). */
  declare readonly candidates?: readonly number[]
  constructor(kind: PatchVerifyKind, at: { path: string; resolved: string; line: number; candidates?: readonly number[] }, message: string) {
    super(`${at.path}: ${message}`, { where: `patch line ${at.line}` })
    Object.defineProperty(this, 'name', { value: 'PatchVerifyError', writable: true, enumerable: false, configurable: true })
    this.kind = kind
    this.path = at.path
    this.resolved = at.resolved
    this.line = at.line
    if (at.candidates) this.candidates = at.candidates
  }
}

/** A line of the patch as an error quotes it: quoted, at most 80 characters, control and bidi characters escaped (text.ts). */
export function shownLine(text: string | undefined): string {
  return text === undefined ? 'end of patch' : quote(text, 80)
}
