/**
 * Where a hunk's old lines are in a file: the tolerance ladder. Each rung
 * is tried only when the one before it found nothing:
 *
 * 1. `exact` — the lines are equal;
 * 2. `trailing-whitespace` — equal once trailing spaces and tabs are
 *    dropped from both (an editor that strips them, a model that adds one);
 * 3. `whitespace` — equal once whitespace at both ends is dropped
 *    (re-indented code).
 *
 * A looser rung never changes what is written: context lines keep the
 * file's own text (verify.ts); only the patch's `+` lines are new. Every
 * position of the first rung that matches is returned, so the caller can
 * report an ambiguity instead of guessing.
 */

export type MatchLevel = 'exact' | 'trailing-whitespace' | 'whitespace'

const LADDER: readonly [MatchLevel, (s: string) => string][] = [
  ['exact', (s) => s],
  ['trailing-whitespace', (s) => s.trimEnd()],
  ['whitespace', (s) => s.trim()],
]

export interface Matches {
  readonly level: MatchLevel
  /** 0-based starts, ascending. */
  readonly at: readonly number[]
}

/**
 * Positions ≥ `from` where `wanted` occurs in `lines`; with `atEnd`, only
 * the one position that ends the file. At most `limit` positions (two are
 * enough to call it ambiguous). Undefined when no rung matches.
 */
export function findLines(lines: readonly string[], wanted: readonly string[], from: number, atEnd: boolean, limit = 2): Matches | undefined {
  const last = lines.length - wanted.length
  if (last < from) return undefined
  for (const [level, norm] of LADDER) {
    const want = wanted.map(norm)
    const at: number[] = []
    for (let i = atEnd ? last : from; i <= last && at.length < limit; i++) if (equalAt(lines, want, i, norm)) at.push(i)
    if (at.length) return { level, at }
  }
  return undefined
}

function equalAt(lines: readonly string[], want: readonly string[], i: number, norm: (s: string) => string): boolean {
  for (let k = 0; k < want.length; k++) if (norm(lines[i + k] as string) !== want[k]) return false
  return true
}
