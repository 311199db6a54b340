/**
 * Git repositories below the write roots (issue 13 §7): a `.git` directory
 * or a `.git` file (worktrees, submodules) anywhere in a workspace is a
 * repository whose config and hooks git runs — `git status` in `sub/`
 * reads `sub/.git/config`, and `git status` at the top recurses into
 * submodules. Namespace mode protects the ones it finds like the
 * workspace's own (bwrap-protect.ts).
 *
 * This runs at every launch, so it is cheap and bounded:
 *
 * - submodules first, wherever they are: the `path = …` entries of the
 *   known repositories' `.gitmodules` (a plain relative path that stays in
 *   the write root; a `..` or absolute one is ignored);
 * - then a walk of the write roots, breadth first (shallow repositories,
 *   where vendored checkouts live, come first), sorted, at most
 *   MAX_ENTRIES directory entries and MAX_DEPTH levels, never following a
 *   symlink (a planted link cannot send it, or a later mount, elsewhere)
 *   and never looking inside a `.git`.
 *
 * `complete` says whether the walk saw everything. A repository it did not
 * see is not protected; one the command creates is not either, until the
 * next launch finds it.
 */
import { closeSync, lstatSync, openSync, readdirSync, readSync } from 'node:fs'
import { dirname, join, normalize, sep } from 'node:path'
import { isWithin } from './paths.js'

export const REPO_WALK = { maxEntries: 512, maxDepth: 3, maxFound: 32 }

export interface FoundRepositories {
  /** `.git` entries found: submodules, then the walk's, shallowest first. */
  readonly gits: string[]
  /** False when a bound stopped the walk: repositories further down were not looked for. */
  readonly complete: boolean
}

function isGit(p: string): boolean {
  try {
    const st = lstatSync(p)
    return st.isDirectory() || st.isFile()
  } catch {
    return false
  }
}

function readSmall(path: string, max = 64 * 1024): string {
  let fd: number | undefined
  try {
    fd = openSync(path, 'r')
    const buf = Buffer.alloc(max)
    return buf.subarray(0, readSync(fd, buf, 0, max, 0)).toString('utf8')
  } catch {
    return ''
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/** The `.git` entries of the submodules `.gitmodules` lists next to `git`, inside `root`. */
function submodulesOf(git: string, root: string): string[] {
  const top = dirname(git)
  const out: string[] = []
  for (const m of readSmall(join(top, '.gitmodules')).matchAll(/^\s*path\s*=\s*(.+?)\s*$/gm)) {
    const rel = normalize(m[1] as string)
    if (rel.startsWith(sep) || rel === '..' || rel.startsWith(`..${sep}`)) continue
    const sub = join(top, rel, '.git')
    if (isWithin(sub, root) && isGit(sub)) out.push(sub)
  }
  return out
}

/** The walk: `.git` entries below `roots`, breadth first, within the bounds. */
function walk(roots: readonly string[], bounds: typeof REPO_WALK, found: string[]): boolean {
  let entries = bounds.maxEntries
  let level = roots.filter((r) => r !== sep)
  for (let depth = 0; level.length > 0; depth++) {
    if (depth > bounds.maxDepth) return false
    const next: string[] = []
    for (const dir of level) {
      let list
      try {
        // Sorted: the same tree gives the same repositories, in the same order, at every launch.
        list = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      } catch {
        continue // unreadable or gone: nothing git could use either
      }
      entries -= list.length
      if (entries < 0) return false
      for (const e of list) {
        const p = join(dir, e.name)
        if (e.name === '.git') {
          if (e.isDirectory() || e.isFile()) found.push(p)
        } else if (e.isDirectory()) next.push(p)
      }
      if (found.length >= bounds.maxFound) return false
    }
    level = next
  }
  return true
}

/**
 * Repositories below `roots`: `known` are the `.git` entries already
 * protected (the workspace's own); they are not returned, but their
 * submodules are.
 */
export function findRepositories(roots: readonly string[], known: readonly string[] = [], bounds = REPO_WALK): FoundRepositories {
  const subs: string[] = []
  for (const git of known) {
    const root = roots.find((r) => isWithin(git, r))
    if (root !== undefined && isGit(git)) subs.push(...submodulesOf(git, root))
  }
  const walked: string[] = []
  const complete = walk(roots, bounds, walked)
  const all = [...new Set([...subs, ...walked])].filter((g) => !known.includes(g))
  return { gits: all.slice(0, bounds.maxFound), complete: complete && all.length <= bounds.maxFound }
}
