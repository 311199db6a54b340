/**
 * The parser of the apply_patch language (grammar.ts): a patch text in,
 * a list of file operations out, each with the patch line it starts at.
 * Nothing here reads a file (verify.ts does). Every error is a
 * PatchParseError naming the 1-based line and what the grammar allows
 * there.
 *
 * Tolerances, all documented in docs/apply-patch.md:
 * - a line's trailing `\r` is dropped (a patch written with CRLF);
 * - blank lines before `*** Begin Patch` and after `*** End Patch`;
 * - trailing whitespace after a marker (`*** End Patch  `);
 * - the first hunk of an update may start without `@@`;
 * - an empty line inside a hunk is an empty context line (editors strip
 *   the space that should start it).
 */
import { ADD_FILE, BEGIN_PATCH, DELETE_FILE, END_OF_FILE, END_PATCH, HUNK, MOVE_TO, UPDATE_FILE } from './grammar.js'
import { PatchParseError, shownLine } from './errors.js'

export interface HunkLine {
  /** ` ` context, `-` removed, `+` added. */
  readonly kind: ' ' | '-' | '+'
  readonly text: string
}

export interface Hunk {
  /** 1-based patch line of its `@@` (or of its first line when it has none). */
  readonly line: number
  /** The text after `@@ `: a line of the file just above the change. */
  readonly header?: string
  readonly lines: readonly HunkLine[]
  /** `*** End of File` followed it: its old lines end the file. */
  readonly endOfFile: boolean
}

export type FileOp =
  | { readonly kind: 'add'; readonly path: string; readonly line: number; readonly content: string }
  | { readonly kind: 'delete'; readonly path: string; readonly line: number }
  | { readonly kind: 'update'; readonly path: string; readonly line: number; readonly moveTo?: { readonly path: string; readonly line: number }; readonly hunks: readonly Hunk[] }

export interface Patch {
  readonly ops: readonly FileOp[]
}

/** A patch larger than this is refused before it is read (a bound on memory and time). */
export const MAX_PATCH_BYTES = 8 * 1024 * 1024

/**
 * Characters that make a path display as another one: C0 and C1 controls
 * and DEL (a CR or an escape sequence rewrites the approver's terminal
 * line), format characters (bidi overrides and isolates, zero-width
 * characters: `evil\u202Etxt.sh` shows as `evilhs.txt`), and the Unicode
 * line and paragraph separators. A path holding one is refused: the
 * approver must read the name that is written. verify.ts applies it to
 * where a path resolves too (a symlink's target is not in the patch).
 */
export const UNSHOWABLE_IN_PATH = /[\p{Cc}\p{Cf}\u2028\u2029]/u
/**
 * The same for an added line, where text is free but must still show as
 * what is written (Trojan Source, CVE-2021-42574): controls other than tab
 * and form feed (a CR mid-line hides what precedes it; a line's CRLF end
 * is dropped before this), bidi overrides and isolates, line separators.
 */
const UNSHOWABLE_IN_TEXT = /[\x00-\x08\x0b\x0d-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]/u

const FILE_OP = `'${ADD_FILE}<path>', '${DELETE_FILE}<path>', '${UPDATE_FILE}<path>'`
const HUNK_LINE = "a hunk line starting with ' ', '-' or '+'"

class Lines {
  private readonly lines: string[]
  /** 0-based index of the current line. */
  i = 0
  constructor(text: string) {
    this.lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l))
    if (text === '' || text.endsWith('\n')) this.lines.pop()
  }
  get line(): number {
    return this.i + 1
  }
  peek(): string | undefined {
    return this.lines[this.i]
  }
  /** The current line with trailing whitespace removed (how markers compare). */
  marker(): string | undefined {
    return this.lines[this.i]?.trimEnd()
  }
  fail(expected: string): never {
    throw new PatchParseError(this.line, expected, shownLine(this.peek()))
  }
  skipBlank(): void {
    while (this.peek() !== undefined && this.peek()!.trim() === '') this.i++
  }
}

export function parsePatch(text: string): Patch {
  if (typeof text !== 'string') throw new PatchParseError(1, 'the patch as a string', typeof text)
  if (Buffer.byteLength(text, 'utf8') > MAX_PATCH_BYTES) throw new PatchParseError(1, `a patch of at most ${MAX_PATCH_BYTES} bytes`, `${Buffer.byteLength(text, 'utf8')} bytes`)
  const src = new Lines(text)
  src.skipBlank()
  if (src.marker() !== BEGIN_PATCH) src.fail(`'${BEGIN_PATCH}'`)
  src.i++
  const ops: FileOp[] = []
  for (;;) {
    const m = src.marker()
    if (m === END_PATCH) break
    if (m === undefined) src.fail(ops.length ? `${FILE_OP} or '${END_PATCH}'` : FILE_OP)
    ops.push(fileOp(src))
  }
  if (ops.length === 0) src.fail(FILE_OP)
  src.i++
  src.skipBlank()
  if (src.peek() !== undefined) src.fail(`nothing after '${END_PATCH}'`)
  return { ops }
}

function fileOp(src: Lines): FileOp {
  const raw = src.peek() as string
  const line = src.line
  if (raw.startsWith(ADD_FILE)) return addFile(src, pathOf(src, raw.slice(ADD_FILE.length)), line)
  if (raw.startsWith(DELETE_FILE)) {
    const path = pathOf(src, raw.slice(DELETE_FILE.length))
    src.i++
    return { kind: 'delete', path, line }
  }
  if (raw.startsWith(UPDATE_FILE)) return updateFile(src, pathOf(src, raw.slice(UPDATE_FILE.length)), line)
  return src.fail(`${FILE_OP} or '${END_PATCH}'`)
}

function pathOf(src: Lines, rest: string): string {
  const path = rest.trim()
  if (path === '') src.fail('a path after the marker')
  if (UNSHOWABLE_IN_PATH.test(path)) src.fail('a path without control, invisible or bidirectional-format characters')
  if (path.endsWith('/')) src.fail('a file path (this one ends with /)')
  return path
}

function addFile(src: Lines, path: string, line: number): FileOp {
  src.i++
  const content: string[] = []
  for (let l = src.peek(); l !== undefined && l.startsWith('+'); l = src.peek()) {
    content.push(addedText(src, l))
    src.i++
  }
  return { kind: 'add', path, line, content: content.length ? `${content.join('\n')}\n` : '' }
}

function updateFile(src: Lines, path: string, line: number): FileOp {
  src.i++
  let moveTo: { path: string; line: number } | undefined
  const raw = src.peek()
  if (raw?.startsWith(MOVE_TO)) {
    moveTo = { path: pathOf(src, raw.slice(MOVE_TO.length)), line: src.line }
    src.i++
  }
  const hunks: Hunk[] = []
  while (!endsUpdate(src.marker())) hunks.push(hunk(src, hunks.length === 0))
  if (hunks.length === 0 && !moveTo) src.fail(`a hunk ('${HUNK}') for the update of ${shownLine(path)}`)
  return moveTo ? { kind: 'update', path, line, moveTo, hunks } : { kind: 'update', path, line, hunks }
}

/** A line that ends an update's hunks: the next file operation, the end of the patch, or the end of the text. */
function endsUpdate(m: string | undefined): boolean {
  return m === undefined || m === END_PATCH || m.startsWith(ADD_FILE.trimEnd()) || m.startsWith(DELETE_FILE.trimEnd()) || m.startsWith(UPDATE_FILE.trimEnd())
}

function hunk(src: Lines, first: boolean): Hunk {
  const line = src.line
  const raw = src.peek() as string
  let header: string | undefined
  if (raw.trimEnd() === HUNK) src.i++
  else if (raw.startsWith(`${HUNK} `)) {
    header = raw.slice(HUNK.length + 1)
    src.i++
  } else if (!first || !isHunkLine(raw)) src.fail(first ? `'${HUNK}' or ${HUNK_LINE}` : `'${HUNK}', '${END_PATCH}' or ${FILE_OP}`)
  const lines: HunkLine[] = []
  for (let l = src.peek(); l !== undefined && isHunkLine(l) && !endsUpdate(l.trimEnd()); l = src.peek()) {
    lines.push(l === '' ? { kind: ' ', text: '' } : { kind: l[0] as HunkLine['kind'], text: l[0] === '+' ? addedText(src, l) : l.slice(1) })
    src.i++
  }
  if (lines.length === 0) src.fail(`${HUNK_LINE} after '${HUNK}'`)
  const endOfFile = src.marker() === END_OF_FILE
  if (endOfFile) src.i++
  return { line, ...(header !== undefined ? { header } : {}), lines, endOfFile }
}

/** The text of an added line (`+…`), refused when it would show as something else than what is written. */
function addedText(src: Lines, line: string): string {
  const text = line.slice(1)
  if (UNSHOWABLE_IN_TEXT.test(text)) src.fail('an added line without control characters (other than tab), bidi overrides or line separators: the approver could not read what is written')
  return text
}

function isHunkLine(l: string): boolean {
  return l === '' || l[0] === ' ' || l[0] === '-' || l[0] === '+'
}
