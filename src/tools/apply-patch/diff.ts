/**
 * The structured diff an approver is shown: per file, unified hunks whose
 * context and removed lines are the file's own text and whose added lines
 * are the patch's — exactly what the applier will write.
 */

export interface DiffHunk {
  /** 1-based first line in the old file (0 for an empty old side). */
  readonly oldStart: number
  readonly oldLines: number
  readonly newStart: number
  readonly newLines: number
  /** Each prefixed with ` `, `-` or `+`. */
  readonly lines: readonly string[]
}

/** A hunk from its lines and where it starts (0-based) in the old and the new file. */
export function diffHunk(oldAt: number, newAt: number, lines: readonly string[]): DiffHunk {
  const oldLines = lines.filter((l) => l[0] !== '+').length
  const newLines = lines.filter((l) => l[0] !== '-').length
  return { oldStart: oldLines ? oldAt + 1 : oldAt, oldLines, newStart: newLines ? newAt + 1 : newAt, newLines, lines }
}

/** The lines of a text without its final newline ('' has none). */
export function textLines(text: string): string[] {
  if (text === '') return []
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l))
  if (text.endsWith('\n')) lines.pop()
  return lines
}

/**
 * Characters of a file's own lines that would make a shown line read as
 * another (a CR returning to the line start, an escape sequence, a bidi
 * override, a zero-width or separator character). A sandboxed command may
 * have written them; added lines cannot hold them (parser.ts). Tab stays.
 */
const UNSHOWN = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/g

function shown(line: string): string {
  return line.replace(UNSHOWN, (c) => {
    const code = c.charCodeAt(0)
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`
  })
}

/**
 * Unified diff text of one file: `--- a/…`, `+++ b/…`, then the hunks
 * (`/dev/null` for an added or deleted file). For the approver: a line's
 * control and bidi characters are written as escapes (UNSHOWN); what is
 * written to the file is the plan's `newText`, exact.
 */
export function unifiedDiff(from: string | null, to: string | null, hunks: readonly DiffHunk[]): string {
  const out = [`--- ${from === null ? '/dev/null' : `a/${from}`}`, `+++ ${to === null ? '/dev/null' : `b/${to}`}`]
  for (const h of hunks) {
    out.push(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`)
    // One by one, not spread into push(): a hunk of ~120k lines (a deleted file) would overflow the stack.
    for (const l of h.lines) out.push(shown(l))
  }
  return `${out.join('\n')}\n`
}
