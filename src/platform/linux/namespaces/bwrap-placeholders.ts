/**
 * Placeholders: the host-side mount points for protected or denied paths
 * that do not exist yet inside a writable root.
 *
 * A mount needs a mount point, and inside a writable root that mount point
 * is on the host. cordon creates it itself — a directory, made without
 * following symlinks — so bwrap never creates anything under a bound
 * directory (the CVE-2026-87766 class), and so the sandbox sees an empty
 * read-only directory there: the path cannot be created, as a file or as a
 * directory.
 *
 * Removing a placeholder after the run needs care: unlinking a dentry that
 * is a mount point in *another* mount namespace silently detaches that
 * mount (Linux ≥ 3.18), which would reopen the path in a sandbox that is
 * still running. So each launch that relies on a placeholder holds a lease —
 * an empty directory inside it, invisible from inside (the sandbox sees the
 * mask) — and only `rmdir`, which fails while any lease remains, removes it.
 * Leases of dead processes (same pid namespace only) are swept; a killed
 * caller leaves empty directories behind at worst (removed by the next
 * launch that uses them), never an open path.
 *
 * Why a directory and not a file: the placeholder sits in the host
 * workspace, usually a repository. git (and hg, jj) track files only, so a
 * tree of empty directories is invisible to `git status` and cannot be
 * staged by `git add -A` — an auto-committing agent runtime never commits
 * `.bashrc/` or `.codex/` — without cordon writing anything into the
 * repository (no `.git/info/exclude` entry, which would be a write into a
 * directory the sandbox can also write, and would hide a real `.codex/` the
 * user adds later). The directories stay visible to `ls -a` while held.
 * Nothing can avoid a host-side dentry: a mount point must exist in the
 * directory that the sandbox shares with the host, or the sandbox would not
 * write through to the host there either.
 */
import { closeSync, lstatSync, mkdirSync, opendirSync, openSync, readSync, readdirSync, realpathSync, rmdirSync, unlinkSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { CordonError, PolicyError } from '../../../errors.js'
import { fromNativeError } from '../../../native/native-error.js'
import { isAlive, pidNamespace } from '../pid-namespace.js'

const LEASE_PREFIX = '.cordon-lease-'
const LEASE_RE = /^\.cordon-lease-(\d+)-(\d+)-[0-9a-f]+$/

/** True for a directory cordon made: non-empty and holding nothing but leases (read until the first other entry). */
export function isPlaceholder(path: string): boolean {
  let dir
  try {
    dir = opendirSync(path)
  } catch {
    return false
  }
  try {
    let leases = 0
    for (let e = dir.readSync(); e; e = dir.readSync()) {
      if (!e.name.startsWith(LEASE_PREFIX)) return false
      leases++
    }
    return leases > 0
  } catch {
    return false
  } finally {
    dir.closeSync()
  }
}

function sweepStale(dir: string): void {
  let entries: string[]
  try {
    entries = readdirSync(dir)
  } catch {
    return
  }
  for (const e of entries) {
    const m = LEASE_RE.exec(e)
    // Only leases from this pid namespace can be checked; others are kept.
    if (m && m[1] === pidNamespace() && !isAlive(Number(m[2]))) removeLease(join(dir, e))
  }
}

/** A lease is an empty directory; earlier cordon versions made files (a placeholder may be shared with one), so both are removed. */
function removeLease(lease: string): void {
  try {
    rmdirSync(lease)
  } catch (err) {
    try {
      if ((err as NodeJS.ErrnoException).code === 'ENOTDIR') unlinkSync(lease)
    } catch {
      /* raced with its owner */
    }
  }
}

function ensureDir(path: string): void {
  // mkdir follows symlinks in the parent chain: the chain must be exactly as planned.
  if (realpathSync.native(dirname(path)) !== dirname(path)) {
    throw new PolicyError(`a symlink appeared above ${path} while cordon was creating a mount point there; refusing to follow it`, { where: 'namespace mode' })
  }
  try {
    mkdirSync(path, { mode: 0o755 })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
  }
  // mkdir does not follow a final symlink, but an existing one must be refused, not used.
  const st = lstatSync(path)
  if (!st.isDirectory()) {
    throw new PolicyError(`${path} appeared as a ${st.isSymbolicLink() ? 'symlink' : 'non-directory'} while cordon was creating a mount point there; refusing to follow it`, { where: 'namespace mode' })
  }
}

/**
 * 12 random hex digits, read once per process, that tell this process's
 * leases apart from those of an earlier holder of the same pid (a lease
 * name is unique per placeholder and process). From /dev/urandom: loading
 * node:crypto for six bytes costs a one-shot CLI run several milliseconds.
 */
let processTag: string | undefined
function leaseTag(): string {
  if (processTag) return processTag
  const buf = Buffer.alloc(6)
  try {
    const fd = openSync('/dev/urandom', 'r')
    try {
      if (readSync(fd, buf, 0, 6, null) === 6) return (processTag = buf.toString('hex'))
    } finally {
      closeSync(fd)
    }
  } catch {
    /* no /dev/urandom here */
  }
  const { randomBytes } = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto')
  return (processTag = randomBytes(6).toString('hex'))
}

const TAKE_ATTEMPTS = 50

/** A synchronous pause of `ms` milliseconds (planning a launch is synchronous). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

function takeLease(path: string): string {
  const lease = join(path, `${LEASE_PREFIX}${pidNamespace()}-${process.pid}-${leaseTag()}`)
  for (let attempt = 0; ; attempt++) {
    try {
      ensureDir(path)
      mkdirSync(lease, { mode: 0o700 })
      return lease
    } catch (err) {
      if (err instanceof CordonError) throw err
      const e = err as NodeJS.ErrnoException
      // Our own lease name (pid and this process's random tag): left by a release that could not unlink it.
      if (e.code === 'EEXIST') return lease
      // ENOENT: another process removed the empty placeholder between our mkdir and our lstat or
      // lease. Launches and releases in a busy workspace can keep doing that: retry after a short,
      // random, growing pause, so the processes fall out of step.
      if (e.code === 'ENOENT' && attempt < TAKE_ATTEMPTS) {
        pause(Math.random() * Math.min(5, 0.2 * (attempt + 1)))
        continue
      }
      throw fromNativeError(e, { step: 'placeholder', syscall: 'mkdir', detail: `could not make the mount point ${path}` })
    }
  }
}

function dropLease(lease: string): void {
  const dir = dirname(lease)
  removeLease(lease)
  // The usual case, no other holder: the directory is empty now. Only when
  // it is not are the other leases read (and those of dead processes swept).
  if (tryRmdir(dir)) return
  sweepStale(dir)
  tryRmdir(dir)
}

function tryRmdir(dir: string): boolean {
  try {
    rmdirSync(dir)
    return true
  } catch {
    return false // ENOTEMPTY: another launch still relies on it
  }
}

/**
 * This process holds one lease per placeholder, counted by the launches
 * using it. When the count falls to zero the lease is kept a moment (runs
 * often follow each other: creating and removing directories costs more
 * than the launch) and dropped after IDLE_MS, on releaseIdlePlaceholders()
 * (sandbox.close()), or at exit.
 */
const IDLE_MS = 2000
interface Held {
  lease: string
  refs: number
  timer: NodeJS.Timeout | undefined
}
const held = new Map<string, Held>()

/** True when this process holds the placeholder at `path` (no filesystem access). */
export function holdsPlaceholder(path: string): boolean {
  return held.has(path)
}

/** Create (or join) the placeholder at `path` for one launch. */
export function acquirePlaceholder(path: string): string {
  const h = held.get(path)
  if (h) {
    h.refs++
    clearTimeout(h.timer)
    h.timer = undefined
  } else {
    held.set(path, { lease: takeLease(path), refs: 1, timer: undefined })
  }
  return path
}

function drop(path: string): void {
  const h = held.get(path)
  if (!h || h.refs > 0) return
  clearTimeout(h.timer)
  held.delete(path)
  dropLease(h.lease)
}

/** One launch no longer needs the placeholder at `path`. */
export function releasePlaceholder(path: string): void {
  const h = held.get(path)
  if (!h || h.refs === 0) return
  if (--h.refs === 0) h.timer = setTimeout(() => drop(path), IDLE_MS).unref()
}

/** Drop every placeholder no running launch uses (sandbox.close(), process exit). */
export function releaseIdlePlaceholders(): void {
  for (const path of [...held.keys()]) drop(path)
}

process.on('exit', () => {
  for (const h of held.values()) h.refs = 0
  releaseIdlePlaceholders()
})
