/**
 * Does the profile of an attempt deny this path, and how? Answers from the
 * enforcement report of that very attempt (the roots the launcher applied),
 * never from a guess. A path inside the write roots that is not protected
 * is not the sandbox's doing, whatever the error says.
 */
import { accessSync, constants, realpathSync, statSync } from 'node:fs'
import { basename, dirname, isAbsolute, join, resolve } from 'node:path'
import { isWithin } from '../../profile/paths.js'
import type { Enforcement } from '../../platform/enforcement.js'

/**
 * `private-tmp`: a private directory of the attempt (namespace mode: /tmp
 * and /var/tmp, unless a write root covers them) is empty for the command,
 * so a host path below it outside the write roots does not exist there (it fails with
 * ENOENT, or "succeeds" into the discarded tmpfs — which nothing can see).
 *
 * `narrowed`: a directory whose own listing is withheld so that a denied
 * path below it stays unreadable (Landlock grants by hierarchy); it is part
 * of keeping a denied read and is never widened.
 */
export type PathRule = 'deny-read' | 'narrowed' | 'outside-read-roots' | 'protected' | 'outside-write-roots' | 'private-tmp'

/** `path` is `root` or below it: the one containment test of cordon (profile/paths.ts). */
export const isUnder = isWithin

/**
 * Canonical form of a path that may not exist yet: the nearest existing
 * ancestor through realpath, plus the rest. A symlink planted in the
 * workspace therefore resolves to where it really points.
 */
export function canonicalPath(path: string): string {
  const abs = resolve(path)
  let head = abs
  const tail: string[] = []
  for (;;) {
    try {
      return join(realpathSync(head), ...tail.reverse())
    } catch {
      const parent = dirname(head)
      if (parent === head) return abs
      tail.push(basename(head))
      head = parent
    }
  }
}

/** The nearest existing directory at or above `path` (canonical): a write root that can be added. */
export function nearestExistingDir(path: string): string {
  let p = path
  for (;;) {
    try {
      if (statSync(p).isDirectory()) return realpathSync(p)
    } catch {
      /* missing, or not reachable: keep walking up */
    }
    const parent = dirname(p)
    if (parent === p) return '/'
    p = parent
  }
}

/** Which rule of the attempt's profile denies `path` for reading, if any. */
export function readRuleFor(fs: Enforcement['filesystem'], path: string): PathRule | undefined {
  if (fs.denyRead.some((d) => isUnder(path, d))) return 'deny-read'
  if (fs.narrowed.includes(path)) return 'narrowed'
  if (!fs.readAll && !fs.readRoots.some((r) => isUnder(path, r))) return 'outside-read-roots'
  return undefined
}

/** Which rule denies writing `path`, if any. */
export function writeRuleFor(fs: Enforcement['filesystem'], path: string): PathRule | undefined {
  if (fs.protected.some((p) => isUnder(path, p))) return 'protected'
  if (!fs.writeRoots.some((r) => isUnder(path, r))) return 'outside-write-roots'
  // Inside a write root, but its directory is narrowed around a denied read:
  // Landlock then grants rights per entry, and a new entry may be refused.
  if (fs.narrowed.includes(dirname(path))) return 'narrowed'
  return undefined
}

/**
 * Would the operating system itself (file modes, a read-only mount) refuse
 * this write without any sandbox? Checked from this unconfined process, as
 * the same user: if so, the error is not the sandbox's and widening is
 * pointless.
 */
export function hostRefusesWrite(path: string): boolean {
  let p = path
  for (;;) {
    try {
      accessSync(p, constants.W_OK)
      return false
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return true
    }
    const parent = dirname(p)
    if (parent === p) return false
    p = parent
  }
}

export function absoluteFrom(cwd: string, p: string): string | undefined {
  if (p.startsWith('~')) return undefined // whose home? not attributable
  return isAbsolute(p) ? p : resolve(cwd, p)
}

/**
 * A path the sandbox hid: under one of the attempt's private directories
 * (the report's `filesystem.privateDirs`), outside the write roots, and
 * present on the host (its directory exists here, so the command's ENOENT
 * was the sandbox's view, not the host's).
 */
export function hiddenByPrivateTmp(e: Enforcement, path: string): boolean {
  const fs = e.filesystem
  const priv = fs.privateDirs.find((d) => isUnder(path, d) && path !== d)
  if (!priv || fs.writeRoots.some((r) => isUnder(priv, r) || isUnder(path, r))) return false
  const parent = dirname(path)
  if (parent === priv) return false // a direct child is created inside the private tmpfs: no error at all
  try {
    return statSync(parent).isDirectory()
  } catch {
    return false
  }
}
