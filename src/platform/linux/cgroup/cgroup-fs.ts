/**
 * The cgroup filesystem operations of a run's cgroup (cgroups(7)): reading
 * its files, enabling controllers in a v2 parent (moving the caller out of
 * the way where the no-internal-process rule asks for it), writing limits,
 * removing a tree of cgroups, and removing what a caller killed with
 * SIGKILL left behind. run-cgroup.ts is the lifecycle built on these.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs'
import { rmdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { CgroupDirPlan } from './cgroup-plan.js'
import { pidsIn } from './hierarchy.js'
import { isAlive, pidNamespace } from '../pid-namespace.js'

/**
 * Run cgroups are named `cordon-<pid namespace>-<pid>-<n>`: a caller killed
 * with SIGKILL leaves its runs' cgroups behind (killed, as its commands died
 * with it, but not removed), and the next caller in the same pid namespace
 * removes those whose pid is gone. The namespace is in the name so that a
 * caller never takes a pid it cannot see for a dead one.
 */
export const PIDNS = pidNamespace()
const NAME = new RegExp(`^cordon-${PIDNS}-(\\d+)-\\d+$`)

/** When each parent was last swept: a sweep per run costs a directory listing on every launch. */
const swept = new Map<string, number>()
/** Dead callers' cgroups are killed already (their commands died with them); removing them can wait this long. */
export const SWEEP_EVERY_MS = 60_000

/** Kill and remove what dead callers left below `parent`: on the first run there, then at most once a minute. */
export function sweepStale(parent: string, now = Date.now()): void {
  const last = swept.get(parent)
  if (last !== undefined && now - last < SWEEP_EVERY_MS) return
  swept.set(parent, now)
  let names: string[] = []
  try {
    names = readdirSync(parent)
  } catch {
    return
  }
  for (const name of names) {
    const m = NAME.exec(name)
    if (!m || isAlive(Number(m[1]))) continue
    const dir = join(parent, name)
    for (const pid of pidsIn(readText(join(dir, 'cgroup.procs')))) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        /* gone */
      }
    }
    removeTree(dir)
  }
}

export function readText(path: string): string {
  try {
    return readFileSync(path, 'latin1')
  } catch {
    return ''
  }
}

/** `KEY N` lines (pids.events, memory.events, memory.oom_control): N of `key`, 0 when absent. */
export function eventCount(text: string, key: string): number {
  const m = new RegExp(`^${key} (\\d+)$`, 'm').exec(text)
  return m ? Number(m[1]) : 0
}

/** The leaf a v2 caller moves its own processes into so its cgroup may hand controllers to the runs' (see `vacate`). */
export const CALLER_LEAF = 'cordon-caller'

/**
 * cgroup v2's no-internal-process rule (cgroups(7), "no internal processes"):
 * a cgroup that has processes of its own cannot enable controllers for its
 * children. A delegated scope holds the caller itself, so the caller moves
 * every process of that cgroup (itself, its zygote) into a leaf below it,
 * as systemd's delegation documentation asks of a delegatee — once per
 * process; the runs' cgroups are then that leaf's siblings, below the
 * caller's original cgroup and its limits. Not run on a pure-v2 host yet.
 */
export function vacate(dir: string): void {
  const leaf = join(dir, CALLER_LEAF)
  try {
    mkdirSync(leaf)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
  }
  for (let round = 0; round < 5; round++) {
    const pids = pidsIn(readText(join(dir, 'cgroup.procs')))
    if (pids.length === 0) return
    for (const pid of pids) {
      try {
        writeFileSync(join(leaf, 'cgroup.procs'), String(pid))
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e
      }
    }
  }
}

/** Enable the controllers the run's v2 cgroup needs in its parent's cgroup.subtree_control. */
export function enableControllers(d: CgroupDirPlan): void {
  if (d.version !== 2 || d.controllers.length === 0) return
  const have = readText(join(d.parent, 'cgroup.subtree_control')).trim().split(/\s+/)
  const add = d.controllers.filter((c) => !have.includes(c))
  if (add.length === 0) return
  const enable = () => writeFileSync(join(d.parent, 'cgroup.subtree_control'), add.map((c) => `+${c}`).join(' '))
  try {
    enable()
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EBUSY') throw e
    vacate(d.parent)
    enable()
  }
}

export function writeLimits(dir: string, d: CgroupDirPlan): void {
  for (const w of d.writes) {
    const path = join(dir, w.file)
    if (w.optional && !existsSync(path)) continue
    writeFileSync(path, w.value)
  }
}

/**
 * rmdir a cgroup and any cgroup below it, deepest first; false when one is
 * still busy. rmdir comes first: a run's cgroup rarely has children (the
 * command would have had to make them), and EBUSY says when it does.
 */
export function removeTree(dir: string): boolean {
  const rm = (): 'gone' | 'busy' => {
    try {
      rmdirSync(dir)
      return 'gone'
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'gone' : 'busy'
    }
  }
  if (rm() === 'gone') return true
  let subs: string[] = []
  try {
    subs = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name)
  } catch {
    return true // gone meanwhile
  }
  let ok = true
  for (const s of subs) ok = removeTree(join(dir, s)) && ok
  return subs.length > 0 && rm() === 'gone' && ok
}

/**
 * removeTree() off the event loop, for the end of a run: rmdir of a cgroup
 * waits for an RCU grace period in the kernel (a v1 hierarchy's took 3–33 ms
 * here, runs 60 ms apart), which a synchronous rmdir would spend blocking
 * the caller's whole process. The common case — a cgroup with nothing
 * below it — is one rmdir on libuv's thread pool; anything else falls back
 * to removeTree().
 */
export async function removeTreeAsync(dir: string): Promise<boolean> {
  try {
    await rmdir(dir)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' || removeTree(dir)
  }
}

const pause = new Int32Array(new SharedArrayBuffer(4))
export function sleepSync(ms: number): void {
  Atomics.wait(pause, 0, 0, ms)
}
