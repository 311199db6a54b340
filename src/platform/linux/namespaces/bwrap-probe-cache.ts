/**
 * A persistent cache of *successful* bwrap probes (bwrap-probe.ts), so that
 * a one-shot process — the CLI — does not pay two spawns (≈ 40 ms) before
 * every command.
 *
 * Where: `$XDG_RUNTIME_DIR/cordon/`, else `/tmp/cordon-cache-<uid>/`. The
 * directory must be a real directory (not a symlink) owned by the caller
 * with mode 0700; the file must be a regular file owned by the caller, not
 * readable or writable by anyone else. Anything else — or an unreadable,
 * malformed or mismatching file — is a miss, and the probe runs as before.
 *
 * Key: the boot id, the uid, the caller's user and mount namespaces, its
 * seccomp state (a caller started under a parent sandbox's filter that
 * refuses new namespaces is another caller), the sysctls that decide
 * whether unprivileged user namespaces work, and the
 * bwrap binary itself (its path, real path, device, inode, size, mode,
 * owner, mtime and ctime). A reboot, a sysctl change or a new bwrap package
 * (new inode, ctime) makes the entry stale.
 *
 * What a tampered entry can do: only the bwrap *facts* come from the file
 * (version, the two optional features, extra warnings). The path, real path
 * and setuid bit are taken from the live binary every time, and the caller
 * still checks that bwrap is not inside a writable root. A lying entry can
 * make a launch fail visibly (an option this bwrap lacks, namespaces that no
 * longer work), or omit `--disable-userns`/`--unshare-cgroup-try`, which the
 * probe itself also does where they fail (the seccomp filter still blocks
 * nested user namespaces). Failed probes are never stored: a stored failure
 * could only turn namespace mode off.
 */
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readlinkSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { isAbsolute, join } from 'node:path'
import type { BwrapFeatures, BwrapWarning } from './bwrap-probe.js'

/** Bump when the key or the stored record changes shape. */
export const PROBE_CACHE_VERSION = 3 // 2: features.bindFd; 3: the caller's seccomp state

/** What a successful probe learned about a bwrap binary on this boot (the rest is read live). */
export interface CachedProbe {
  version: string | null
  features: BwrapFeatures
  /** Warnings that do not follow from the version and setuid bit (a failed --disable-userns trial). */
  extraWarnings: BwrapWarning[]
}

export interface ProbeCacheOptions {
  /** The cache directory (default: $XDG_RUNTIME_DIR/cordon, else /tmp/cordon-cache-<uid>). */
  dir?: string
  /** The uid the directory and file must belong to (default: the caller's). */
  uid?: number
  /** Where boot id, sysctls and namespaces are read (default /proc; tests point it elsewhere). */
  procRoot?: string
}

export interface ProbeCacheEntry {
  /** The stored facts when the entry matches this key, else null. */
  read(): CachedProbe | null
  /** Store the facts (atomic; false when it could not be written). */
  write(facts: CachedProbe): boolean
  /** Forget the stored answer (a fresh probe failed). */
  remove(): void
  /** The file, for messages. */
  readonly file: string
}

const SYSCTLS = ['sys/user/max_user_namespaces', 'sys/kernel/apparmor_restrict_unprivileged_userns', 'sys/kernel/unprivileged_userns_clone'] as const
const MAX_FILE_BYTES = 16 * 1024
const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_DIRECTORY, O_NOFOLLOW } = constants

/**
 * $XDG_RUNTIME_DIR/cordon when XDG_RUNTIME_DIR is an absolute path, else
 * /tmp/cordon-cache-<uid> (never a name a sandbox's `mkdtemp('/tmp/cordon-')`
 * directory can take: those have exactly six characters after the dash).
 */
export function defaultProbeCacheDir(uid: number, env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_RUNTIME_DIR
  return xdg && isAbsolute(xdg) ? join(xdg, 'cordon') : `/tmp/cordon-cache-${uid}`
}

function readTrimmed(path: string): string | null {
  try {
    return readFileSync(path, 'utf8').trim()
  } catch {
    return null
  }
}

function link(path: string): string | null {
  try {
    return readlinkSync(path)
  } catch {
    return null
  }
}

/** `Seccomp:` and `Seccomp_filters:` of /proc/self/status (proc(5)): the mode and how many filters this process runs under. */
function seccompState(proc: string): string | null {
  const status = readTrimmed(join(proc, 'self/status'))
  if (status === null) return null
  return status
    .split('\n')
    .filter((l) => l.startsWith('Seccomp:') || l.startsWith('Seccomp_filters:'))
    .map((l) => l.replace(/\s+/g, ' '))
    .join('; ')
}

/** The key, or null when this host cannot give one (no boot id: nothing is cached). */
function cacheKey(loc: { path: string; realPath: string }, uid: number, proc: string): Record<string, unknown> | null {
  const bootId = readTrimmed(join(proc, 'sys/kernel/random/boot_id'))
  if (!bootId) return null
  let st
  try {
    st = statSync(loc.realPath, { bigint: true })
  } catch {
    return null
  }
  if (!st.isFile()) return null
  return {
    v: PROBE_CACHE_VERSION,
    bootId,
    uid,
    userns: link(join(proc, 'self/ns/user')),
    mntns: link(join(proc, 'self/ns/mnt')),
    seccomp: seccompState(proc),
    sysctls: Object.fromEntries(SYSCTLS.map((s) => [s, readTrimmed(join(proc, s))])),
    bwrap: {
      path: loc.path,
      realPath: loc.realPath,
      dev: String(st.dev),
      ino: String(st.ino),
      size: String(st.size),
      mode: String(st.mode),
      owner: String(st.uid),
      mtimeNs: String(st.mtimeNs),
      ctimeNs: String(st.ctimeNs),
    },
  }
}

/**
 * Open the cache directory, refusing symlinks, other owners and any mode
 * but 0700. Creates it (0700) when missing and `create` is set. Returns an
 * fd: files are then reached through /proc/self/fd/N, so the directory
 * cannot be swapped between the check and the use.
 */
function openDir(dir: string, uid: number, create: boolean): number | null {
  let created = false
  if (create) {
    try {
      mkdirSync(dir, { mode: 0o700 })
      created = true
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return null
    }
  }
  let before
  try {
    before = lstatSync(dir)
  } catch {
    return null
  }
  if (!before.isDirectory() || before.uid !== uid) return null
  let fd: number
  try {
    fd = openSync(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
  } catch {
    return null
  }
  try {
    const st = fstatSync(fd)
    if (!st.isDirectory() || st.uid !== uid || st.dev !== before.dev || st.ino !== before.ino) throw new Error('changed')
    // mkdir's mode went through the umask; a directory we did not just create must already be 0700.
    if (created && (st.mode & 0o7777) !== 0o700) fchmodSync(fd, 0o700)
    else if ((st.mode & 0o7777) !== 0o700) throw new Error('mode')
    return fd
  } catch {
    closeSync(fd)
    return null
  }
}

function isWarning(w: unknown): w is BwrapWarning {
  if (typeof w !== 'object' || w === null) return false
  const { detail, fix } = w as Record<string, unknown>
  return Object.keys(w).length === 2 && typeof detail === 'string' && typeof fix === 'string' && detail.length <= 2048 && fix.length <= 2048
}

/** The stored facts, checked field by field: anything unexpected is a miss. */
function parseFacts(value: unknown): CachedProbe | null {
  if (typeof value !== 'object' || value === null) return null
  const { version, features, extraWarnings } = value as Record<string, unknown>
  if (Object.keys(value).length !== 3) return null
  if (version !== null && (typeof version !== 'string' || !/^\d{1,6}\.\d{1,6}\.\d{1,6}$/.test(version))) return null
  if (typeof features !== 'object' || features === null || Object.keys(features).length !== 3) return null
  const { disableUserns, cgroupTry, bindFd } = features as Record<string, unknown>
  if (typeof disableUserns !== 'boolean' || typeof cgroupTry !== 'boolean' || typeof bindFd !== 'boolean') return null
  if (!Array.isArray(extraWarnings) || extraWarnings.length > 8 || !extraWarnings.every(isWarning)) return null
  return { version, features: { disableUserns, cgroupTry, bindFd }, extraWarnings: extraWarnings.map(({ detail, fix }) => ({ detail, fix })) }
}

function readEntry(file: string, uid: number): unknown {
  let fd: number
  try {
    fd = openSync(file, O_RDONLY | O_NOFOLLOW)
  } catch {
    return null
  }
  try {
    const st = fstatSync(fd)
    if (!st.isFile() || st.uid !== uid || (st.mode & 0o077) !== 0 || st.size > MAX_FILE_BYTES) return null
    return JSON.parse(readFileSync(fd, 'utf8'))
  } catch {
    return null
  } finally {
    closeSync(fd)
  }
}

/** The cache file name for a bwrap path: `/usr/bin/bwrap` → `bwrap-probe-usr-bin-bwrap.json`. */
export function probeCacheFileName(bwrapPath: string): string {
  return `bwrap-probe${bwrapPath.replace(/[^A-Za-z0-9._]+/g, '-')}.json`
}

/**
 * The cache entry for this bwrap on this host, or null when nothing can be
 * cached here (no boot id, no uid, bwrap not statable). The key is taken
 * now: an entry written later under it goes stale if anything changed since.
 */
export function bwrapProbeCache(loc: { path: string; realPath: string }, opts: ProbeCacheOptions = {}): ProbeCacheEntry | null {
  const uid = opts.uid ?? process.getuid?.()
  if (uid === undefined || !isAbsolute(loc.path) || !isAbsolute(loc.realPath)) return null
  const key = cacheKey(loc, uid, opts.procRoot ?? '/proc')
  if (!key) return null
  const dir = opts.dir ?? defaultProbeCacheDir(uid)
  const name = probeCacheFileName(loc.path)
  const keyText = JSON.stringify(key)
  return {
    file: join(dir, name),
    read() {
      const fd = openDir(dir, uid, false)
      if (fd === null) return null
      try {
        const entry = readEntry(`/proc/self/fd/${fd}/${name}`, uid) as { key?: unknown; facts?: unknown } | null
        if (!entry || typeof entry !== 'object' || JSON.stringify(entry.key) !== keyText) return null
        return parseFacts(entry.facts)
      } finally {
        closeSync(fd)
      }
    },
    write(facts) {
      const checked = parseFacts(facts)
      if (!checked) return false
      const fd = openDir(dir, uid, true)
      if (fd === null) return false
      const base = `/proc/self/fd/${fd}`
      const tmp = `${base}/.${name}.${process.pid}.${Date.now().toString(36)}.tmp`
      try {
        const out = openSync(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
        try {
          writeFileSync(out, `${JSON.stringify({ key, facts: checked })}\n`)
        } finally {
          closeSync(out)
        }
        renameSync(tmp, `${base}/${name}`)
        return true
      } catch {
        try {
          unlinkSync(tmp)
        } catch {
          /* never created */
        }
        return false
      } finally {
        closeSync(fd)
      }
    },
    remove() {
      const fd = openDir(dir, uid, false)
      if (fd === null) return
      try {
        unlinkSync(`/proc/self/fd/${fd}/${name}`)
      } catch {
        /* nothing stored */
      } finally {
        closeSync(fd)
      }
    },
  }
}
