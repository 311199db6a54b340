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
 * Line comparisons one patch may spend (a hunk of many repeated lines
 * against a file of the same line is quadratic): past it the hunk is
 * refused instead of hanging the caller.
 */
export const MATCH_BUDGET = 20_000_000

export class Budget {
  constructor(public left = MATCH_BUDGET) {}
}

/**
 * Positions ≥ `from` where `wanted` occurs in `lines`; with `atEnd`, only
 * the one position that ends the file. At most `limit` positions (two are
 * enough to call it ambiguous). Undefined when no rung matches; `'budget'`
 * when the budget ran out first.
 */
export function findLines(lines: readonly string[], wanted: readonly string[], from: number, atEnd: boolean, limit = 2, budget = new Budget()): Matches | undefined | 'budget' {
  const last = lines.length - wanted.length
  if (last < from) return undefined
  for (const [level, norm] of LADDER) {
    const want = wanted.map(norm)
    const have = normalized(lines, level, norm)
    const at: number[] = []
    for (let i = atEnd ? last : from; i <= last && at.length < limit; i++) {
      const cost = equalAt(have, want, i)
      budget.left -= cost.compared
      if (budget.left < 0) return 'budget'
      if (cost.equal) at.push(i)
    }
    if (at.length) return { level, at }
  }
  return undefined
}

/** A file's lines under each rung, made once per file (a patch may place many hunks in it). */
const NORMALIZED = new WeakMap<readonly string[], Map<MatchLevel, readonly string[]>>()

function normalized(lines: readonly string[], level: MatchLevel, norm: (s: string) => string): readonly string[] {
  if (level === 'exact') return lines
  let byLevel = NORMALIZED.get(lines)
  if (!byLevel) NORMALIZED.set(lines, (byLevel = new Map()))
  let have = byLevel.get(level)
  if (!have) byLevel.set(level, (have = lines.map(norm)))
  return have
}

function equalAt(have: readonly string[], want: readonly string[], i: number): { equal: boolean; compared: number } {
  for (let k = 0; k < want.length; k++) if (have[i + k] !== want[k]) return { equal: false, compared: k + 1 }
  return { equal: true, compared: want.length }
}
