/**
 * Which roots a widening may never propose (issue 13 §6). A denied path is
 * known only from the command's own output, and the command can print any
 * path: a forged `touch: cannot touch '~/.cache/x': Permission denied`
 * proposed `write:$HOME`, and the approved retry appended to `~/.bashrc` and
 * to the user's rules file. So whatever the output says, a proposed root is
 * never
 *
 * - `/`, a home directory, or a directory above one (shell startup files,
 *   rules files, every repository);
 * - in a home: where programs keep configuration, code and keys that run
 *   or are trusted later (`.config`, `.local`, `.ssh`, `.gnupg`, `.cordon`,
 *   `.codex`, `.profile.d`…);
 * - a system directory or anything in one (`/etc`, `/usr`, `/var`, `/run`:
 *   the session's sockets, …) — except, in `/var`, `/opt` and `/srv`, a
 *   directory a non-root caller owns (a project in `/var/www/me`, a CI
 *   work dir in `/var/lib/ci/job-1`): the caller can write there anyway,
 *   and nothing of the system's lives in it. A root caller owns every
 *   system directory, so for root ownership proves nothing;
 * - a shared temp directory itself, or a directory in one that is not the
 *   caller's (in namespace mode the retry binds the *host's* directory);
 * - a directory that holds a path the attempt protected (`.git/hooks`,
 *   `.bashrc`, …) or a cordon rules file.
 *
 * A refusal says why; running outside the sandbox is still available by
 * asking for it (`require_escalated`), with its scope stated. Facts come
 * from the attempt's enforcement report (`filesystem.protected`) and the
 * orchestrator's own options (rules files), never from a backend's plan.
 */
import { statSync } from 'node:fs'
import { homedir } from 'node:os'
import { resolve } from 'node:path'
import type { Enforcement } from '../../platform/enforcement.js'
import { isUnder } from '../denial/path-rules.js'
import { quote } from '../text.js'

export interface RootGuard {
  /** Home directories to keep out (default: this user's, and $HOME). */
  readonly homes?: readonly string[]
  /** Rules and amendments files: a root holding one is never proposed. */
  readonly rulesFiles?: readonly string[]
  /** The caller's uid (default: this process's). */
  readonly uid?: number
}

const SYSTEM_DIRS = ['/etc', '/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/boot', '/proc', '/sys', '/dev', '/var', '/opt', '/srv', '/run', '/snap', '/root']
const SHARED_TMP = ['/tmp', '/var/tmp', '/dev/shm']
/** System directories where a user may own a directory of their own (never `/etc`, `/usr`, `/run`…). */
const USER_OWNABLE = ['/var', '/opt', '/srv']
/** In a home: configuration, code on PATH, keys, cordon's and Codex's own rules. */
const HOME_KEEP = ['.config', '.local', '.ssh', '.gnupg', '.cordon', '.codex', '.profile.d', '.bashrc.d', '.git', '.gitconfig', '.pki', '.mozilla', '.cargo/bin']

export function defaultHomes(): string[] {
  return [...new Set([homedir(), process.env.HOME].filter((h): h is string => !!h).map((h) => resolve(h)))]
}

/** Why `root` may not be proposed as a `kind` root, or undefined when it may. */
export function refusedRoot(root: string, kind: 'write' | 'read', e: Enforcement, guard: RootGuard): string | undefined {
  const what = `${kind}: ${root === '/' ? '/' : quote(root)}`
  if (root === '/') return `${what} would be everything: never proposed from a denial (ask to run outside the sandbox instead)`
  const shared = SHARED_TMP.find((t) => t === root)
  if (shared) return `${what} is a shared temp directory: never proposed as a whole`
  const homes = guard.homes ?? defaultHomes()
  const home = homes.find((h) => isUnder(h, root))
  if (home) return `${what} would cover the home directory ${home} (shell startup files, rules files, keys): never proposed from a denial`
  const kept = homes.flatMap((h) => HOME_KEEP.map((k) => resolve(h, k))).find((k) => isUnder(root, k) || isUnder(k, root))
  if (kept) return `${what} would cover ${kept}, where programs keep configuration and code they run later: never proposed from a denial`
  const uid = guard.uid ?? process.getuid?.() ?? -1
  const inShared = SHARED_TMP.find((t) => isUnder(root, t))
  if (inShared && kind === 'write' && !ownedBy(root, uid)) return `${what} is another user's directory in the shared ${inShared}: never proposed`
  const system = SYSTEM_DIRS.find((s) => isUnder(root, s))
  const usersOwn = system !== undefined && root !== system && USER_OWNABLE.includes(system) && uid !== 0 && ownedBy(root, uid)
  if (system && !inShared && !usersOwn) return `${what} lies in the system directory ${system}: never proposed from a denial`
  const prot = e.filesystem.protected.find((p) => isUnder(p, root))
  if (kind === 'write' && prot) return `${what} would hold the protected path ${prot}, which stays read-only: never proposed`
  const rules = (guard.rulesFiles ?? []).find((f) => isUnder(f, root))
  if (kind === 'write' && rules) return `${what} would hold the rules file ${rules}: the command could change what cordon allows; never proposed`
  return undefined
}

/** `dir` exists, is a directory (not a file such as a crontab or a mailbox) and `uid` owns it. */
function ownedBy(dir: string, uid: number): boolean {
  try {
    const st = statSync(dir)
    return st.isDirectory() && st.uid === uid
  } catch {
    return false
  }
}
