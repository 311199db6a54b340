/**
 * Temp directories this process owns (a sandbox's private `$TMPDIR`, the
 * private launcher copy's directory): made with an owner marker, removed at
 * exit when nobody removed them before, and — once per process, for each
 * place they are made in — the ones left behind by dead owners are swept.
 * The sweep stays off the launch path: the listing is one readdir, the
 * checks of the candidates run asynchronously, and nothing of it runs again
 * in the same process (a crash is what leaves a directory: SIGKILL, or a
 * signal with Node's default handler, which skips 'exit').
 *
 * The marker, `.cordon-owner` inside the directory, names the owner: boot
 * id, pid namespace, pid and the process's start time (field 22 of
 * /proc/<pid>/stat), so a recycled pid is not mistaken for the owner. A
 * directory is swept only when all of this holds: its name is
 * `<prefix>XXXXXX`, it is a real directory (not a symlink) of our uid, its
 * marker is a regular file that parses, and the owner is certainly gone
 * (another boot, or no process with that pid and start time in our pid
 * namespace). Anything unsure — no marker yet (another process is between
 * mkdtemp and writing it), another pid namespace, an unreadable /proc — is
 * left alone: a live owner's directory is never removed.
 *
 * A sandbox's directory is a write root: the command may have forged its
 * marker (that can only get its own directory removed, which it could do
 * itself) and planted symlinks. So removal never follows a symlink, even
 * one swapped in while the tree is being removed: it walks by descriptor.
 * Each directory is opened with O_NOFOLLOW|O_DIRECTORY and its entries are
 * reached through `/proc/self/fd/<fd>/<name>` — openat(2) semantics, which
 * Node's fs lacks: the kernel resolves the descriptor's magic link to the
 * opened directory itself, not to whatever now has its name. unlink and
 * rmdir never follow the last component; a child directory is opened with
 * O_NOFOLLOW, so one swapped for a symlink is unlinked as a link. Modes a
 * command removed (chmod 000) are restored on the directory inode itself
 * (fchmod, or chmod through an O_PATH descriptor checked to be a directory).
 */
import { chmodSync, closeSync, constants, fchmodSync, fstatSync, mkdtempSync, openSync, readFileSync, readdirSync, readlinkSync, rmdirSync, unlinkSync, writeSync } from 'node:fs'
import { open, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { standardFdsOpen } from './std-fds.js'

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_WRONLY, O_CREAT, O_EXCL } = constants
/** Linux O_PATH (not exported by node:fs): a descriptor that names an inode without opening it. */
const O_PATH = 0o10000000
const MARKER = '.cordon-owner'
const MARKER_MAGIC = 'cordon-owner 1'
/** Deeper trees are left (each level holds a descriptor while it is emptied). */
const MAX_DEPTH = 64

interface Owner {
  boot: string
  pidns: string
  pid: number
  start: string
}

let self: Owner | undefined
const owned = new Set<string>()
const swept = new Set<string>()
let exitHook = false

function readSmall(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}

/** Field 22 (starttime) of /proc/<pid>/stat; the comm field may hold spaces and parentheses, so fields are counted after the last ')'. */
function startTime(pid: number | 'self'): string | undefined {
  const stat = readSmall(`/proc/${pid}/stat`)
  if (stat === undefined) return undefined
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
}

function me(): Owner {
  if (self) return self
  let pidns = '?'
  try {
    pidns = readlinkSync('/proc/self/ns/pid')
  } catch {
    /* no /proc: the marker still names pid and boot */
  }
  return (self = {
    boot: readSmall('/proc/sys/kernel/random/boot_id')?.trim() ?? '?',
    pidns,
    pid: process.pid,
    start: startTime('self') ?? '?',
  })
}

function markerText(o: Owner): string {
  return `${MARKER_MAGIC}\nboot ${o.boot}\npidns ${o.pidns}\npid ${o.pid}\nstart ${o.start}\n`
}

/** The owner a marker names, or undefined when it is not a regular file that parses (never followed if a symlink). */
async function readMarker(dir: string): Promise<Owner | undefined> {
  let fh
  try {
    fh = await open(join(dir, MARKER), O_RDONLY | O_NOFOLLOW)
  } catch {
    return undefined
  }
  try {
    if (!(await fh.stat()).isFile()) return undefined
    const { buffer, bytesRead } = await fh.read(Buffer.alloc(512), 0, 512, 0)
    const m = /^cordon-owner 1\nboot (\S+)\npidns (.+)\npid (\d+)\nstart (\d+)\n$/.exec(buffer.subarray(0, bytesRead).toString('utf8'))
    return m ? { boot: m[1] as string, pidns: m[2] as string, pid: Number(m[3]), start: m[4] as string } : undefined
  } catch {
    return undefined
  } finally {
    await fh.close()
  }
}

/** True only when the owner is certainly gone. */
async function ownerGone(o: Owner): Promise<boolean> {
  const now = me()
  if (o.boot === '?' || now.boot === '?') return false
  if (o.boot !== now.boot) return true // another boot: every process of it is gone
  if (o.pidns !== now.pidns || o.pidns === '?') return false // its pid cannot be checked from here
  if (o.pid === now.pid) return o.start !== now.start
  try {
    const st = await readFile(`/proc/${o.pid}/stat`, 'utf8')
    return st.slice(st.lastIndexOf(')') + 2).split(' ')[19] !== o.start // pid reused by another process
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' // EACCES (hidepid) and the like: unsure, keep
  }
}

function namePattern(prefix: string): RegExp {
  return new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[A-Za-z0-9]{6}$`)
}

/**
 * Remove `<parent>/<prefix>XXXXXX` directories of dead owners (see the file
 * comment for what is never touched). The listing is taken now; the checks
 * run off the event loop (one open and stat per candidate), and a removal —
 * rare: a crash — after them.
 */
export function sweepStale(parent: string, prefix: string): Promise<string[]> {
  let names: string[]
  try {
    names = readdirSync(parent)
  } catch {
    return Promise.resolve([])
  }
  const re = namePattern(prefix)
  const candidates = names.filter((n) => re.test(n)).map((n) => join(parent, n))
  return candidates.length === 0 ? Promise.resolve([]) : removeDead(someOf(candidates, SWEEP_BATCH))
}

/**
 * At most this many candidates per process. The checks are asynchronous, but
 * a one-shot process (`cordon run`) still waits for them before it exits: on
 * a /tmp holding hundreds of unmarked dirs the unbounded sweep added ~80 ms
 * to every CLI run. A random few per process still clears a crashed
 * caller's leftovers within a few starts.
 */
const SWEEP_BATCH = 8

function someOf<T>(items: readonly T[], n: number): T[] {
  if (items.length <= n) return [...items]
  const pool = [...items]
  for (let i = 0; i < n; i++) {
    const j = i + Math.floor(Math.random() * (pool.length - i))
    ;[pool[i], pool[j]] = [pool[j]!, pool[i]!]
  }
  return pool.slice(0, n)
}

async function removeDead(dirs: readonly string[]): Promise<string[]> {
  const removed: string[] = []
  const uid = process.getuid?.()
  for (const dir of dirs) {
    try {
      if (!(await isOwnDir(dir, uid))) continue
      const owner = await readMarker(dir)
      if (owner && (await ownerGone(owner)) && removeTree(dir)) removed.push(dir)
    } catch {
      /* raced with its owner, or unreadable: left */
    }
  }
  return removed
}

/** A real directory (opened without following a symlink) belonging to `uid`. */
async function isOwnDir(dir: string, uid: number | undefined): Promise<boolean> {
  const fh = await open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
  try {
    return uid === undefined || (await fh.stat()).uid === uid
  } finally {
    await fh.close()
  }
}

/**
 * A fresh 0700 directory `<parent>/<prefix>XXXXXX` with this process's
 * marker, removed at exit unless removeOwnedDir() came first. The first
 * call for a (parent, prefix) sweeps what dead owners left there.
 */
export function makeOwnedTempDir(parent: string, prefix: string): string {
  standardFdsOpen()
  const key = `${parent}\0${prefix}`
  if (!swept.has(key)) {
    swept.add(key)
    sweepStale(parent, prefix).catch(() => {}) // never throws into the caller
  }
  const dir = mkdtempSync(join(parent, prefix))
  try {
    // O_EXCL in a directory made a moment ago, that nothing else has been told about.
    const fd = openSync(join(dir, MARKER), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
    try {
      writeSync(fd, markerText(me()))
    } finally {
      closeSync(fd)
    }
  } catch {
    /* no marker: the directory is still removed at exit and on close, only never swept */
  }
  owned.add(dir)
  if (!exitHook) {
    exitHook = true
    process.once('exit', () => {
      for (const d of owned) removeTree(d)
      owned.clear()
    })
  }
  return dir
}

/** Remove a directory made by makeOwnedTempDir (never throws). True when it is gone. */
export function removeOwnedDir(dir: string): boolean {
  owned.delete(dir)
  try {
    // The usual case: nothing but the marker. Two syscalls, no walk.
    unlinkSync(join(dir, MARKER))
    rmdirSync(dir)
    return true
  } catch {
    return removeTree(dir)
  }
}

/** Open a directory without following a symlink; restore u+rwx on it when its mode keeps us out. */
function openDir(path: string): number | undefined {
  try {
    return openSync(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EACCES' || !restoreMode(path)) return undefined
  }
  try {
    return openSync(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
  } catch {
    return undefined
  }
}

/** chmod 0700 the directory at `path` itself, through an O_PATH descriptor checked to be a directory (a symlink is left alone). */
function restoreMode(path: string): boolean {
  let fd: number
  try {
    fd = openSync(path, O_PATH | O_NOFOLLOW)
  } catch {
    return false
  }
  try {
    if (!fstatSync(fd).isDirectory()) return false
    // fchmod(2) refuses O_PATH descriptors; chmod(2) of the magic link reaches the inode the
    // descriptor holds, not a path that could have been swapped since.
    chmodSync(`/proc/self/fd/${fd}`, 0o700)
    return true
  } catch {
    return false
  } finally {
    closeSync(fd)
  }
}

/**
 * Remove `path` and everything below it without following any symlink
 * (see the file comment). Never throws; true when it is gone. A tree
 * deeper than MAX_DEPTH, or entries that cannot be removed, are left.
 */
export function removeTree(path: string): boolean {
  const fd = openDir(path)
  if (fd === undefined) {
    try {
      unlinkSync(path) // a file or a symlink where the directory was: unlink does not follow
      return true
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === 'ENOENT'
    }
  }
  try {
    emptyDir(fd, 0)
  } catch {
    /* whatever is left stays */
  } finally {
    closeSync(fd)
  }
  try {
    rmdirSync(path)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT'
  }
}

function emptyDir(fd: number, depth: number): void {
  const at = `/proc/self/fd/${fd}`
  let names: string[]
  try {
    names = readdirSync(at)
  } catch {
    fchmodSync(fd, 0o700) // a directory the command made unreadable (r removed, x kept)
    names = readdirSync(at)
  }
  for (const name of names) removeEntry(fd, name, depth)
}

function removeEntry(parent: number, name: string, depth: number): void {
  const p = `/proc/self/fd/${parent}/${name}`
  if (retryWritable(parent, () => unlinkSync(p))) return
  if (depth >= MAX_DEPTH) return
  const child = openDir(p)
  if (child === undefined) return
  try {
    emptyDir(child, depth + 1)
  } finally {
    closeSync(child)
  }
  retryWritable(parent, () => rmdirSync(p))
}

/** Run `op`; when the parent directory's mode forbids it, restore u+rwx on the parent (by descriptor) and retry once. True when it succeeded or the entry is gone. */
function retryWritable(parent: number, op: () => void): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      op()
      return true
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      if (code === 'ENOENT') return true
      if ((code !== 'EACCES' && code !== 'EPERM') || attempt > 0) return false
      try {
        fchmodSync(parent, 0o700)
      } catch {
        return false
      }
    }
  }
  return false
}
