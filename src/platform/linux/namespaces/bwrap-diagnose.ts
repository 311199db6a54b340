/**
 * Why bubblewrap could not build a sandbox here, and the exact fix.
 *
 * Reads bwrap's stderr from the trial run together with the native probe
 * (which knows the user-namespace sysctls and where its own unshare test
 * failed). The messages matched are bwrap's own, stable across 0.4–0.11:
 *
 *   AppArmor (Ubuntu ≥ 23.10)  "loopback: Failed RTM_NEWADDR: Operation not permitted",
 *                              "setting up uid map: Permission denied"
 *   sysctls                    "No permissions to creat(e|ing) new namespace",
 *                              "Creating new namespace failed: No space left on device"
 *   containers                 "Creating new namespace failed: Operation not permitted" (seccomp),
 *                              "Failed to make / slave", "Failed to mount tmpfs" (LSM)
 *   masked /proc               "Can't mount proc on /newroot/proc: Operation not permitted"
 */
import type { NativeProbe } from '../../../native/binding.js'

export type NamespaceCause =
  | 'not-installed'
  | 'not-absolute'
  | 'bwrap-in-writable-root'
  | 'bwrap-too-old'
  | 'apparmor'
  | 'max-user-namespaces'
  | 'userns-clone-disabled'
  | 'container'
  | 'proc'
  | 'unknown'

export interface Diagnosis {
  cause: NamespaceCause
  reason: string
  fix: string
}

export const APPARMOR_FIX =
  'allow bwrap to create user namespaces: write /etc/apparmor.d/bwrap containing ' +
  '`abi <abi/4.0>, include <tunables/global> profile bwrap /usr/bin/bwrap flags=(unconfined) { userns, }` ' +
  'and run `apparmor_parser -r /etc/apparmor.d/bwrap` (or, host-wide: sysctl -w kernel.apparmor_restrict_unprivileged_userns=0)'
export const MAX_USERNS_FIX = 'sysctl -w user.max_user_namespaces=15000 (persist it in /etc/sysctl.d/99-userns.conf)'
export const USERNS_CLONE_FIX = 'sysctl -w kernel.unprivileged_userns_clone=1 (persist it in /etc/sysctl.d/99-userns.conf)'
export const CONTAINER_FIX =
  "the container's seccomp/LSM profile forbids user namespaces or mounts: start it with " +
  '`--security-opt seccomp=unconfined --security-opt apparmor=unconfined` (Docker) or use mode landlock inside containers'
export const PROC_FIX =
  'the container masks parts of /proc, so a fresh procfs may not be mounted: start it with ' +
  '`--security-opt systempaths=unconfined` (Docker) or `--security-opt unmask=/proc/*` (Podman)'

const has = (stderr: string, re: RegExp) => re.test(stderr)

/** What the sysctls alone say about unprivileged user namespaces (null: nothing wrong there). */
function fromSysctls(p: NativeProbe): Diagnosis | null {
  if (p.maxUserNamespaces === 0) return { cause: 'max-user-namespaces', reason: 'user.max_user_namespaces is 0: no user namespaces may be created', fix: MAX_USERNS_FIX }
  if (p.unprivilegedUsernsClone === 0) return { cause: 'userns-clone-disabled', reason: 'kernel.unprivileged_userns_clone is 0 (Debian/Ubuntu kernels): unprivileged user namespaces are off', fix: USERNS_CLONE_FIX }
  return null
}

/** Turn a failed trial run into a cause, a reason (with bwrap's own words) and a fix. */
export function diagnoseBwrapFailure(stderr: string, probe: NativeProbe): Diagnosis {
  const said = stderr.trim().split('\n').filter(Boolean).slice(-2).join(' | ') || 'no message'
  if (has(stderr, /RTM_NEWADDR|setting up uid map: Permission denied|Failed to make \/ slave: Permission denied/) && probe.apparmorRestrictUserns === 1) {
    return { cause: 'apparmor', reason: `AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=1); bwrap said: ${said}`, fix: APPARMOR_FIX }
  }
  if (has(stderr, /RTM_NEWADDR/)) {
    return { cause: 'apparmor', reason: `the new user namespace has no capabilities (the AppArmor userns restriction fails this way); bwrap said: ${said}`, fix: APPARMOR_FIX }
  }
  if (has(stderr, /No space left on device|ENOSPC|max_\*?_?namespaces exceeded/)) {
    return { cause: 'max-user-namespaces', reason: `the user namespace limit is reached or 0; bwrap said: ${said}`, fix: MAX_USERNS_FIX }
  }
  if (has(stderr, /Can't mount proc/)) return { cause: 'proc', reason: `a fresh /proc cannot be mounted here; bwrap said: ${said}`, fix: PROC_FIX }
  if (has(stderr, /No permissions to creat|Creating new namespace failed|unshare user ns|Operation not permitted|Permission denied/)) {
    const sysctl = fromSysctls(probe)
    if (sysctl) return { ...sysctl, reason: `${sysctl.reason}; bwrap said: ${said}` }
    if (probe.apparmorRestrictUserns === 1) return { cause: 'apparmor', reason: `AppArmor restricts unprivileged user namespaces; bwrap said: ${said}`, fix: APPARMOR_FIX }
    return { cause: 'container', reason: `namespaces or mounts are forbidden here (typically a container's seccomp or LSM profile); bwrap said: ${said}`, fix: CONTAINER_FIX }
  }
  if (has(stderr, /Unknown option|unrecognized option/)) return { cause: 'bwrap-too-old', reason: `bwrap rejected an option cordon needs; bwrap said: ${said}`, fix: 'install bubblewrap ≥ 0.5 (Debian 12 and Ubuntu 22.04 ship suitable versions)' }
  return { cause: 'unknown', reason: `bwrap could not build a sandbox; it said: ${said}`, fix: 'run `cordon doctor` and check the bwrap message above' }
}

/** The errno bwrap's message names (its own `strerror` text), for the few a mount step reports. */
const MOUNT_ERRNO: Record<string, [number, string]> = {
  'Read-only file system': [30, 'EROFS'],
  'No such file or directory': [2, 'ENOENT'],
  'Not a directory': [20, 'ENOTDIR'],
  'Is a directory': [21, 'EISDIR'],
}

export interface MountChurn {
  path: string
  errno: number
  code: string
  said: string
}

/**
 * A mount bwrap could not make because its target changed on the host
 * between planning and launch — a denied path that existed when the mounts
 * were planned and was gone when bwrap came to mask it ("Can't mkdir
 * ~/.ssh: Read-only file system"), or the other way round. Only a path the
 * plan mounts counts; anything else is not churn.
 */
export function mountChurn(stderr: string, targets: readonly string[]): MountChurn | undefined {
  const m = /Can't (?:mkdir|create file at|remount readonly|find source path|mount tmpfs on|bind mount) (\/[^:]*): ([^\n]+)/.exec(stderr)
  if (!m || !targets.includes(m[1]!)) return undefined
  const [errno, code] = MOUNT_ERRNO[m[2]!.trim()] ?? [0, 'EUNKNOWN']
  return { path: m[1]!, errno, code, said: m[0] }
}
