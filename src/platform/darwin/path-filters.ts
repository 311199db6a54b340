/**
 * Path filters of one rule, kept within what Seatbelt's compiler takes.
 *
 * A rule with a few paths names them directly: `(literal "…")` for the
 * path alone, `(subpath "…")` for it and everything below. A long list
 * (thousands of deny-read matches, a monorepo's protected files) compiles
 * slowly as one filter per path and can exceed the compiler's string
 * limit, so past GROUP_THRESHOLD paths of a kind they are grouped into
 * anchored regexes `^(/a|/b)$` (literals) and `^(/a|/b)(/.*)?$` (subpaths),
 * each at most MAX_SBPL_STRING bytes and MAX_ALTERNATIVES paths.
 */
import { MAX_SBPL_STRING, privatePath, regexLiteral, sbplLength, sbplString } from './sbpl-string.js'

/** Paths of one kind a rule names one by one; more are grouped into regexes. */
export const GROUP_THRESHOLD = 16
/** Paths in one grouped regex (a bounded alternation keeps each regex small to compile). */
export const MAX_ALTERNATIVES = 64

export type PathKind = 'literal' | 'subpath'

export interface PathFilter {
  kind: PathKind
  path: string
}

/** Regexes of the alternation of `alts`, each within the string and alternative limits. */
function groupedRegexes(alts: string[], suffix: string): string[] {
  const out: string[] = []
  const overhead = sbplLength(`^()${suffix}`)
  let current: string[] = []
  let size = overhead
  for (const alt of alts) {
    const len = sbplLength(alt) + 1
    if (current.length && (size + len > MAX_SBPL_STRING || current.length >= MAX_ALTERNATIVES)) {
      out.push(`^(${current.join('|')})${suffix}`)
      current = []
      size = overhead
    }
    current.push(alt)
    size += len
  }
  if (current.length) out.push(`^(${current.join('|')})${suffix}`)
  return out
}

const SUFFIX: Record<PathKind, string> = { literal: '$', subpath: '(/.*)?$' }

/** The filters of `paths` (resolved through /private), directly or grouped, in a stable order. */
export function pathFilters(paths: readonly PathFilter[], what: string): string[] {
  const out: string[] = []
  for (const kind of ['literal', 'subpath'] as const) {
    const mine = [...new Set(paths.filter((p) => p.kind === kind).map((p) => privatePath(p.path)))]
    if (mine.length <= GROUP_THRESHOLD) {
      for (const p of mine) out.push(`(${kind} ${sbplString(p, what)})`)
      continue
    }
    for (const re of groupedRegexes(mine.map(regexLiteral), SUFFIX[kind])) out.push(`(regex ${sbplString(re, what)})`)
  }
  return out
}
