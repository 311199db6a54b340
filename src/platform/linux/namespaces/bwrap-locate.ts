/**
 * Where the bubblewrap executable is. Only absolute, well-known locations
 * (or an absolute path the caller names) are used: never PATH, never the
 * working directory. A bwrap inside a writable root is refused, because the
 * sandboxed command could replace it and the next launch would run its
 * replacement, unconfined, as the caller.
 */
import { accessSync, constants, realpathSync } from 'node:fs'
import { isAbsolute } from 'node:path'
import { isWithin } from '../../../profile/paths.js'

/** Searched in this order when the caller names no bwrap. */
export const BWRAP_CANDIDATES = ['/usr/bin/bwrap', '/usr/local/bin/bwrap'] as const

export type BwrapLocation =
  | { ok: true; path: string; realPath: string }
  | { ok: false; cause: 'not-installed' | 'not-absolute'; reason: string; fix: string; tried: string[] }

function executable(path: string): string | null {
  try {
    accessSync(path, constants.X_OK)
    return realpathSync(path)
  } catch {
    return null
  }
}

/** Find bwrap: the explicit path when given (absolute only), else the well-known locations. */
export function locateBwrap(explicit?: string): BwrapLocation {
  if (explicit !== undefined && !isAbsolute(explicit)) {
    return { ok: false, cause: 'not-absolute', reason: `bwrap path '${explicit}' is not absolute (a relative path would be looked up from the working directory)`, fix: 'pass an absolute path such as /usr/bin/bwrap', tried: [explicit] }
  }
  const tried = explicit !== undefined ? [explicit] : [...BWRAP_CANDIDATES]
  for (const path of tried) {
    const realPath = executable(path)
    if (realPath) return { ok: true, path, realPath }
  }
  return {
    ok: false,
    cause: 'not-installed',
    reason: `bubblewrap is not installed (tried ${tried.join(', ')})`,
    fix: `${explicit !== undefined ? `${explicit} is missing or not executable: point the bwrap option at an installed bwrap, or ` : ''}apt-get install bubblewrap (Debian/Ubuntu) · dnf install bubblewrap (Fedora) · apk add bubblewrap (Alpine)`,
    tried,
  }
}

/** The write root that contains bwrap (by its path or the file it resolves to), if any. */
export function bwrapInWritableRoot(loc: { path: string; realPath: string }, writeRoots: readonly string[]): string | undefined {
  return writeRoots.find((root) => isWithin(loc.path, root) || isWithin(loc.realPath, root))
}
