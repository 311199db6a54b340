/**
 * Turn a resolved policy into Landlock allow rules.
 *
 * Landlock can only add rights. To deny reads of D inside a readable (or
 * writable) root R, R itself gets no rule; instead each directory on the way
 * from R to D has its *other* children granted, recursively. Consequences,
 * reported in `narrowed`: the directories on that way (e.g. `/` and `$HOME`
 * for `~/.ssh`) cannot be listed, and inside a write root files cannot be
 * created directly in them. A denied path that does not exist yet stays
 * denied: nothing above it grants the right to create or read it.
 */
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { SetupError } from '../../../errors.js'
import { constants } from 'node:os'
import { isWithin } from '../../../profile/paths.js'
import type { ResolvedPolicy } from '../../../profile/resolve.js'

export type Access = 'read' | 'write' | 'dev' | 'exec'
export interface LandlockRule {
  path: string
  access: Access[]
}
export interface LandlockRules {
  rules: LandlockRule[]
  /** Directories that lost their own rights so a denied path below them stays unreadable. */
  narrowed: string[]
}

/** Character devices programs expect to read and write (redirects to /dev/null…). */
export const DEVICE_FILES = ['/dev/null', '/dev/zero', '/dev/full', '/dev/random', '/dev/urandom', '/dev/tty']

/**
 * A read root above /dev does not extend to it: only DEVICE_FILES are
 * granted there. Root without capabilities still owns the 0600 disk devices,
 * and reading the raw blocks (debugfs) returns every denied file (red team);
 * other ptys, the kernel log and the like have no business in a sandbox
 * either. Namespace mode has bwrap's minimal /dev instead.
 */
const HOST_DEVICES = '/dev'

/** True when read root `root` lies above /dev, so Landlock mode withholds the host's devices from it. */
export const coversHostDevices = (root: string): boolean => root !== HOST_DEVICES && isWithin(HOST_DEVICES, root)

/**
 * A directory on the way to a denied path must be listed to grant its other
 * children. One that is gone (ENOENT, ENOTDIR: the host changed) has none.
 * One its permission bits let the caller list but that still cannot be
 * listed — a parent sandbox hides it, as cordon's own
 * Landlock mode hides `/` above `~/.ssh` — would get no rule and neither
 * would anything below it: every read denied, and the command's execve
 * failing EACCES with nothing saying why. That is a setup error naming the
 * directory and the way out.
 */
function childrenOf(dir: string) {
  try {
    return readdirSync(dir, { withFileTypes: true })
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'EIO'
    if (code === 'ENOENT' || code === 'ENOTDIR') return []
    // The caller's own permission bits refuse it (another user's 0700 home):
    // the caller reaches nothing below it by listing anyway, and the sandbox
    // grants nothing there — as before, fewer rights, nothing hidden.
    if (code === 'EACCES' && !modeLetsList(dir)) return []
    const detail = `cannot list ${dir}, which holds a denied path, to grant the rest of it (a parent sandbox hides it: cordon's own Landlock mode cannot be nested in Landlock mode); run the outer sandbox in namespace mode, whose mounts hide no directory from listing`
    throw new SetupError('plan', 'readdir', (constants.errno as Record<string, number>)[code] ?? 0, code, detail, { cause: err })
  }
}

/** Whether the permission bits alone let this process list `dir` (root: always; capabilities are not consulted). */
function modeLetsList(dir: string): boolean {
  const uid = process.getuid?.() ?? 0
  if (uid === 0) return true
  try {
    const st = statSync(dir)
    if (st.uid === uid) return (st.mode & 0o400) !== 0
    const groups = [process.getgid?.(), ...(process.getgroups?.() ?? [])]
    return groups.includes(st.gid) ? (st.mode & 0o040) !== 0 : (st.mode & 0o004) !== 0
  } catch {
    return false
  }
}

function splitAround(root: string, access: Access[], denies: readonly string[], out: LandlockRules): void {
  const below = denies.filter((d) => isWithin(d, root))
  if (below.length === 0) {
    out.rules.push({ path: root, access })
    return
  }
  if (below.includes(root)) return // the root itself is denied
  out.narrowed.push(root)
  for (const entry of childrenOf(root)) {
    // A symlink child gets no rule: Landlock rules apply to the inode a path
    // resolves to, and its target is covered (or not) by its own root.
    if (entry.isSymbolicLink()) continue
    splitAround(join(root, entry.name), access, below, out)
  }
}

export function landlockRules(policy: ResolvedPolicy): LandlockRules {
  const out: LandlockRules = { rules: [], narrowed: [] }
  for (const root of policy.readRoots) {
    const devices = coversHostDevices(root) ? [HOST_DEVICES] : []
    splitAround(root, ['read'], [...policy.denyRead, ...devices], out)
  }
  for (const root of policy.writeRoots) splitAround(root, ['write'], policy.denyRead, out)
  for (const dev of DEVICE_FILES) if (!policy.denyRead.some((d) => isWithin(dev, d))) out.rules.push({ path: dev, access: ['dev'] })
  return out
}
