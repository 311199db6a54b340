/**
 * Deny-read globs (`**\/.env`, `~/.config/**\/token`) are expanded at setup
 * time by a bounded walk below each glob's static prefix: a glob cannot be
 * handed to Landlock or to a bind mount, only the files it matches now.
 * Files created later that match are not covered; the enforcement report
 * says so (a `deny-read-glob` note).
 */
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import picomatch from 'picomatch'

const MAX_DEPTH = 8
const MAX_ENTRIES = 20_000
const SKIP_DIRS = new Set(['node_modules'])

export interface GlobExpansion {
  matches: string[]
  truncated: boolean
}

/** Expand absolute glob patterns (already `~`/cwd-expanded) to the paths that exist now. */
export function expandDenyGlobs(patterns: readonly string[]): GlobExpansion {
  const out: string[] = []
  let seen = 0
  let truncated = false
  const walk = (dir: string, depth: number, isMatch: (p: string) => boolean): void => {
    if (depth > MAX_DEPTH || truncated) return
    let entries
    try {
      entries = readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const e of entries) {
      if (++seen > MAX_ENTRIES) {
        truncated = true
        return
      }
      const full = join(dir, e.name)
      if (isMatch(full)) out.push(full)
      else if (e.isDirectory() && !SKIP_DIRS.has(e.name)) walk(full, depth + 1, isMatch)
    }
  }
  for (const pattern of patterns) {
    const base = picomatch.scan(pattern).base || '/'
    walk(base, 0, picomatch(pattern, { dot: true }))
  }
  return { matches: [...new Set(out)], truncated }
}
