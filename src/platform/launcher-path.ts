/**
 * Which launcher binary a launch executes (Linux and macOS). The launcher runs before
 * any confinement, so it must not be one the sandboxed command can
 * replace: when the shipped one lies inside a write root, a private copy
 * outside every write root is used instead.
 *
 * Where the copy goes: the first of these places that is outside every
 * write root of the sandbox — compared by real path, with the same
 * containment test as everything else — and that a sandboxed command could
 * not have prepared (our own or root's, and sticky if others may write it):
 *
 *   1. `$XDG_RUNTIME_DIR` (per user, 0700, a tmpfs that a reboot clears);
 *   2. the temp dir (`$TMPDIR`, else /tmp);
 *   3. /var/tmp;
 *   4. `$XDG_CACHE_HOME/cordon`, else `~/.cache/cordon` (made 0700).
 *
 * So `cd /tmp && cordon run -- ls` with cordon installed under a write root
 * gets a copy in $XDG_RUNTIME_DIR or /var/tmp instead of failing. The copy
 * lives in a fresh 0700 `cordon-launcher-XXXXXX` directory (mkdtemp; in a
 * sticky directory nobody else can rename or replace it) with an owner
 * marker: removed at exit, and swept by a later process after a crash
 * (platform/owned-dirs.ts). It is made once per place per process.
 */
import { chmodSync, copyFileSync, lstatSync, mkdirSync, realpathSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { basename, isAbsolute, join } from 'node:path'
import { LoadError } from '../errors.js'
import { loadNative } from '../native/load.js'
import { makeOwnedTempDir, removeOwnedDir } from './owned-dirs.js'
import { isWithin } from '../profile/paths.js'

/** Private copies made by this process, by the real path of the place they are in. */
const copies = new Map<string, string>()

/** The places a copy may go, in order of preference (see the file comment). */
export function copyPlaces(env: NodeJS.ProcessEnv = process.env): string[] {
  const abs = (p: string | undefined) => (p && isAbsolute(p) ? p : undefined)
  const cache = join(abs(env.XDG_CACHE_HOME) ?? join(homedir(), '.cache'), 'cordon')
  const places = [abs(env.XDG_RUNTIME_DIR), tmpdir(), '/var/tmp', cache].filter((p): p is string => p !== undefined)
  return [...new Set(places)]
}

/**
 * The real path of `place` when a copy may be made there: a directory
 * (not a symlink at the end of the path, once resolved), owned by us or
 * root, and sticky when others may write it. The cache place is created.
 */
function usablePlace(place: string, create: boolean): string | undefined {
  try {
    if (create) mkdirSync(place, { recursive: true, mode: 0o700 })
    const real = realpathSync.native(place)
    const st = lstatSync(real)
    const uid = process.getuid?.() ?? 0
    if (!st.isDirectory() || (st.uid !== uid && st.uid !== 0)) return undefined
    if ((st.mode & 0o022) !== 0 && (st.mode & 0o1000) === 0) return undefined // others may write, not sticky
    return real
  } catch {
    return undefined
  }
}

function makeCopy(place: string, shipped: string): string {
  const dir = makeOwnedTempDir(place, 'cordon-launcher-')
  try {
    const copy = join(dir, basename(shipped))
    copyFileSync(shipped, copy)
    chmodSync(copy, 0o500)
    return copy
  } catch (err) {
    removeOwnedDir(dir)
    throw err
  }
}

/**
 * The launcher to execute for a sandbox with these write roots. When the
 * shipped launcher lies inside a write root (cordon installed in the
 * workspace's node_modules, the usual case for an agent working on a
 * project), sandboxed code could replace it and the *next* launch would run
 * the replacement before any confinement: a private copy outside every
 * write root is used instead.
 */
export function launcherFor(writeRoots: readonly string[]): string {
  const shipped = loadNative().launcherPath
  const writable = (p: string) => writeRoots.some((root) => isWithin(p, root))
  if (!writable(shipped)) return shipped
  const places = copyPlaces()
  const cache = places[places.length - 1]
  for (const place of places) {
    const real = usablePlace(place, place === cache && !writable(place))
    if (real === undefined || writable(real)) continue
    let copy = copies.get(real)
    if (!copy) {
      copy = makeCopy(real, shipped)
      copies.set(real, copy)
    }
    return copy
  }
  // Everywhere a copy could go is writable by the sandbox too (write root "/"): nothing to protect it with.
  if (writeRoots.includes('/')) return shipped
  throw new LoadError(
    'no place outside the sandbox write roots for a private copy of the launcher (the shipped one is inside a write root)',
    places,
    'set XDG_RUNTIME_DIR or TMPDIR to a directory of yours outside the write roots, or install cordon outside them',
  )
}
