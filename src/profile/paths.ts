/**
 * Path expansion and canonicalisation for profiles.
 *
 * Every path is made absolute and canonical *before* the launch. A symlink
 * met on the way is followed only if it lies outside every writable root: a
 * symlink inside a writable root may have been planted by an earlier
 * sandboxed command to redirect this setup (a bind, a mask, a protected
 * path) onto the host, so it is refused (fail closed).
 */
import { lstatSync, realpathSync } from 'node:fs'
import { homedir } from 'node:os'
import { isAbsolute, join, parse, resolve, sep } from 'node:path'
import { PolicyError } from '../errors.js'

export interface ExpandContext {
  cwd: string
  tmpdir: string
  home?: string
}

/** `~`, `${cwd}`, `${tmpdir}`, `${home}` and relative paths → absolute, normalised. */
export function expandPath(raw: string, ctx: ExpandContext): string {
  // Most paths have no variable (the secrets list is all `~/…`): the
  // substitutions, the home lookup and the check run only where they apply.
  let p = raw.includes('${') ? raw.replaceAll('${cwd}', ctx.cwd).replaceAll('${tmpdir}', ctx.tmpdir).replaceAll('${home}', ctx.home ?? homedir()) : raw
  if (p === '~') p = ctx.home ?? homedir()
  else if (p.startsWith('~/')) p = join(ctx.home ?? homedir(), p.slice(2))
  const unknown = p.includes('${') ? /\$\{[^}]*\}/.exec(p) : null
  if (unknown) throw new PolicyError(`unknown variable ${unknown[0]} (known: \${cwd}, \${tmpdir}, \${home})`, { where: raw })
  return isAbsolute(p) ? resolve(p) : resolve(ctx.cwd, p)
}

/** True when `p` is `root` or below it (absolute paths; a trailing separator on `root` is fine). */
export function isWithin(p: string, root: string): boolean {
  if (root === '/' || root === sep) return p.startsWith(sep)
  // Compared in place (no `root + sep` string per call: this runs for every path component at every launch).
  const n = root.endsWith(sep) ? root.length - 1 : root.length
  return p.startsWith(n === root.length ? root : root.slice(0, n)) && (p.length === n || p.charCodeAt(n) === SEP_CODE)
}

const SEP_CODE = sep.charCodeAt(0)

/** `root` contains `p` strictly below itself (a component sandboxed code could have replaced). */
function strictlyInsideAny(p: string, roots: readonly string[]): string | undefined {
  for (const r of roots) if (p !== r && isWithin(p, r)) return r
  return undefined
}

/** `dir` (canonical: absolute, normalised) joined with one component, as path.join would. */
function child(dir: string, part: string): string {
  if (part === '.' || part === '..') return join(dir, part)
  // A root ends in the separator (`/`, and a drive root on Windows): nothing to add between.
  return dir.endsWith(sep) ? dir + part : dir + sep + part
}

/** `dir` joined with `parts[from]`, `parts[from + 1]`, …, as path.join would. */
function withTail(dir: string, parts: readonly string[], from: number): string {
  let out = dir
  for (let i = from; i < parts.length; i++) out = child(out, parts[i]!)
  return out
}

function lstatOrNull(p: string): ReturnType<typeof lstatSync> | null {
  try {
    // A missing path is the common case (most secret paths do not exist):
    // no exception for it, which costs more than the lstat itself.
    return lstatSync(p, { throwIfNoEntry: false }) ?? null
  } catch (err) {
    // EACCES: the caller cannot search a directory on the way (a 0700 HOME of
    // another user). The sandbox cannot reach below it either; keep the tail.
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES') return null
    throw err
  }
}

/**
 * Canonical forms of path prefixes outside every writable root: sandboxed
 * code cannot change those, so one sandbox reuses them across runs (also the
 * fact that one does not exist: most secret paths are missing, and a missing
 * path keeps its written form either way). Components strictly inside a
 * writable root are re-checked on every launch.
 */
export type CanonCache = Map<string, string>

/** Cached for a component that did not exist (a real path is never empty). */
const MISSING = ''

/** What lstat(2) says of a path, as lstatOrNull reads it: `error` is any errno it would throw. */
export type PathKind = 'missing' | 'symlink' | 'present' | 'error'

/**
 * Keep of a cache only what canonicalize() would find again now, so that
 * the next launch sees the filesystem as a new sandbox would, at the cost
 * of one batch of lstats (`kinds`, the backend's: one call on Linux)
 * instead of a walk per path. An entry stays when its path is what it was:
 * still missing, or still there and not a link (its canonical form is
 * itself); a link's entry always goes, since its target may have moved —
 * as does every entry of which the batch says something else. Kept entries
 * are exactly what canonicalize() would cache again: each key is a
 * canonical parent plus one component, looked at on its own. Without
 * `kinds` the cache is emptied.
 */
export function revalidate(cache: CanonCache, kinds: ((paths: readonly string[]) => readonly PathKind[]) | undefined): void {
  if (!kinds || cache.size === 0) return cache.clear()
  const keys = [...cache.keys()]
  const now = kinds(keys)
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!
    const canon = cache.get(key)
    const same = canon === MISSING ? now[i] === 'missing' : canon === key && now[i] === 'present'
    if (!same) cache.delete(key)
  }
}

/**
 * Canonicalise an absolute path component by component. Missing tails are
 * kept as written (a denied path that does not exist yet is still denied).
 * A symlink inside one of `writableRoots` (canonical) is refused.
 */
export function canonicalize(abs: string, writableRoots: readonly string[], what: string, cache?: CanonCache): string {
  // From the path's own root: `/` here, a drive or a share on Windows.
  const root = parse(abs).root
  const parts = abs.slice(root.length).split(sep).filter(Boolean)
  let cur = root
  for (let i = 0; i < parts.length; i++) {
    const next = child(cur, parts[i]!)
    // Strictly inside a writable root, sandboxed code could have changed it.
    const planted = strictlyInsideAny(next, writableRoots)
    const mutable = planted !== undefined
    const hit = mutable ? undefined : cache?.get(next)
    if (hit === MISSING) return withTail(next, parts, i + 1)
    if (hit !== undefined) {
      cur = hit
      continue
    }
    const st = lstatOrNull(next)
    if (!st) {
      if (!mutable) cache?.set(next, MISSING)
      return withTail(next, parts, i + 1)
    }
    if (st.isSymbolicLink()) {
      if (planted !== undefined) {
        throw new PolicyError(
          `${what} ${abs} goes through the symlink ${next}, which lies inside the writable root ${planted}; ` +
            'sandboxed code could have planted it, so cordon refuses to follow it',
          { where: what },
        )
      }
      cur = realpathSync(next)
    } else {
      cur = next
    }
    if (!mutable) cache?.set(next, cur)
  }
  return cur
}

/** Canonical write roots: each must exist; symlinks are resolved (checked against the others after). */
export function canonicalWriteRoots(paths: readonly string[]): string[] {
  const roots: string[] = []
  for (const p of paths) {
    let real: string
    try {
      real = realpathSync(p)
    } catch (cause) {
      throw new PolicyError(`write root ${p} does not exist`, { where: 'filesystem.write', cause })
    }
    roots.push(real)
  }
  // A write root reached through a symlink planted inside another write root is refused too.
  for (const p of paths) canonicalize(p, roots, 'write root')
  return dedupeRoots(roots)
}

/** Remove duplicates and roots already covered by another root. */
export function dedupeRoots(roots: readonly string[]): string[] {
  const sorted = [...new Set(roots)].sort((a, b) => a.length - b.length)
  return sorted.filter((r, i) => !sorted.slice(0, i).some((o) => isWithin(r, o)))
}

export function hasGlob(p: string): boolean {
  return /[*?[\]{}]/.test(p)
}
