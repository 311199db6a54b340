/**
 * One file's hunks applied to its lines, in order: each hunk's old lines
 * (context and removed) are found at or after where the previous hunk
 * ended (match.ts), and replaced by its context and added lines. Context
 * keeps the file's own text, so a match found with whitespace tolerance
 * never rewrites an unchanged line.
 *
 * Placement:
 * - `@@ <header>`: the hunk's lines are searched after the first line at or
 *   after the cursor that matches the header (same ladder); the first
 *   match wins — the header is what tells repeated code apart;
 * - no header: the old lines must occur once after the cursor; found twice
 *   or more is `ambiguous` (the error names the file lines);
 * - `*** End of File`: the old lines must end the file;
 * - a hunk with only `+` lines goes right after its header line, else at
 *   the end of the file;
 * - a hunk whose last old line is empty and that matches nowhere is tried
 *   once more without it (a blank line a model added at the end).
 */
import { PatchVerifyError } from './errors.js'
import { diffHunk, type DiffHunk } from './diff.js'
import { Budget, findLines, type Matches, type MatchLevel } from './match.js'
import type { Hunk, HunkLine } from './parser.js'

export interface HunkResult {
  readonly lines: string[]
  readonly hunks: DiffHunk[]
  readonly levels: MatchLevel[]
}

interface Where {
  readonly path: string
  readonly resolved: string
}

export function applyHunks(fileLines: readonly string[], hunks: readonly Hunk[], where: Where, budget = new Budget()): HunkResult {
  const out: string[] = []
  const diff: DiffHunk[] = []
  const levels: MatchLevel[] = []
  let cursor = 0
  for (const h of hunks) {
    const placed = place(fileLines, h, cursor, where, budget)
    copyLines(out, fileLines, cursor, placed.at)
    const newAt = out.length
    const shown: string[] = []
    let k = placed.at
    for (const l of placed.lines) {
      if (l.kind === '+') {
        out.push(l.text)
        shown.push(`+${l.text}`)
      } else {
        const own = fileLines[k++] as string
        if (l.kind === ' ') out.push(own)
        shown.push(`${l.kind}${own}`)
      }
    }
    diff.push(diffHunk(placed.at, newAt, shown))
    levels.push(placed.level)
    cursor = k
  }
  copyLines(out, fileLines, cursor, fileLines.length)
  return { lines: out, hunks: diff, levels }
}

/**
 * Appends `from[start..end)` to `to` one by one: spread into push() passes
 * each line as an argument, and past ~120k lines that overflows the stack
 * (a RangeError out of the handler aborts the model's whole response).
 */
function copyLines(to: string[], from: readonly string[], start: number, end: number): void {
  for (let i = start; i < end; i++) to.push(from[i] as string)
}

interface Placed {
  readonly at: number
  readonly level: MatchLevel
  readonly lines: readonly HunkLine[]
}

function place(fileLines: readonly string[], h: Hunk, cursor: number, where: Where, budget: Budget): Placed {
  const found = (wanted: readonly string[], from: number, atEnd: boolean, limit?: number): Matches | undefined => {
    const m = findLines(fileLines, wanted, from, atEnd, limit, budget)
    if (m === 'budget') throw new PatchVerifyError('context', { ...where, line: h.line }, 'placing this hunk would compare too many lines (repeated context): add an \'@@ <line above the change>\' header or use fewer, more distinctive context lines')
    return m
  }
  let from = cursor
  if (h.header !== undefined) {
    const head = found([h.header], cursor, false, 1)
    if (!head) throw new PatchVerifyError('context', { ...where, line: h.line }, `the @@ line ${JSON.stringify(clip(h.header))} is not in the file after line ${cursor}`)
    from = (head.at[0] as number) + 1
  }
  const old = h.lines.filter((l) => l.kind !== '+').map((l) => l.text)
  if (old.length === 0) return { at: h.header !== undefined ? from : fileLines.length, level: 'exact', lines: h.lines }
  const direct = found(old, from, h.endOfFile)
  const placed = direct ? { matches: direct, lines: h.lines } : retryWithoutTrailingBlank(h, (w) => found(w, from, h.endOfFile))
  if (!placed) {
    const what = h.endOfFile ? 'at the end of the file' : `after line ${from}`
    throw new PatchVerifyError('context', { ...where, line: h.line }, `the hunk's context and removed lines (${old.length}, starting ${JSON.stringify(clip(old[0] as string))}) are not in the file ${what}`)
  }
  if (placed.matches.at.length > 1 && h.header === undefined && !h.endOfFile) {
    const candidates = placed.matches.at.map((i) => i + 1)
    throw new PatchVerifyError('ambiguous', { ...where, line: h.line, candidates }, `the hunk's lines occur more than once (at file lines ${candidates.join(', ')}…): add an '@@ <line above the change>' header or more context`)
  }
  return { at: placed.matches.at[0] as number, level: placed.matches.level, lines: placed.lines }
}

function retryWithoutTrailingBlank(h: Hunk, find: (wanted: readonly string[]) => Matches | undefined): { matches: Matches; lines: readonly HunkLine[] } | undefined {
  const lastOld = h.lines.map((l, i) => [l, i] as const).filter(([l]) => l.kind !== '+').pop()
  if (!lastOld || lastOld[0].text.trim() !== '' || lastOld[0].kind !== ' ') return undefined
  const lines = h.lines.filter((_, i) => i !== lastOld[1])
  const old = lines.filter((l) => l.kind !== '+').map((l) => l.text)
  if (old.length === 0) return undefined
  const matches = find(old)
  return matches ? { matches, lines } : undefined
}

function clip(s: string): string {
  return s.length > 60 ? `${s.slice(0, 60)}…` : s
}
