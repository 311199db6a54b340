/**
 * One run's cgroups, made from a plan (cgroup-plan.ts): created below the
 * caller's own cgroups with their limits written before anything joins,
 * each one's cgroup.procs opened for the zygote's child to join
 * (native/linux/zygote-child.c), and at the end of the run everything in
 * them killed, waited for, and the directories removed.
 *
 * Writes are synchronous (a few small files in a pseudo filesystem); only
 * the wait for the killed processes to be gone is asynchronous.
 */
import { closeSync, mkdirSync, openSync, writeFileSync, constants as fsc } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { fromNativeError } from '../../../native/native-error.js'
import type { LimitEvents } from '../../backend.js'
import type { CgroupKill, CgroupPlan } from './cgroup-plan.js'
import { pidsIn } from './hierarchy.js'
import { enableControllers, eventCount, PIDNS, readText, removeTree, removeTreeAsync, sleepSync, sweepStale, writeLimits } from './cgroup-fs.js'

/** How long a teardown waits for the killed processes to leave the cgroup (they are already SIGKILLed). */
const EMPTY_WAIT_MS = 5000
const POLL_MS = 5

let serial = 0
const live = new Set<RunCgroup>()
/** Directories being made on the thread pool (createAhead), not yet a RunCgroup's. */
const making = new Set<string>()

export class RunCgroup {
  /** Directories made, in plan order. */
  readonly dirs: string[] = []
  private fds: number[] = []
  private done: Promise<LimitEvents> | undefined
  private removal: Promise<boolean> | undefined
  /** How the cgroup was killed, once it was. */
  private killed: CgroupKill | undefined
  /** The counters as an earlier run left them (a cgroup used again, recycle()): this run's counts are above them. */
  private baseline: LimitEvents = { pidsLimitHit: 0, oomKills: 0, cpuThrottled: 0 }
  /**
   * Asked once the run's cgroup is empty and counted: true when it takes
   * the cgroup for another run (ahead.ts, through recycle()); otherwise
   * the directories are removed.
   */
  reuse: ((rc: RunCgroup, counted: LimitEvents) => boolean) | undefined

  private constructor(readonly plan: CgroupPlan) {}

  /**
   * Make the run's cgroups with their limits, and open each one's
   * cgroup.procs (close-on-exec: node:fs opens with O_CLOEXEC). Nothing has
   * joined yet. A failure removes what was made and throws a SetupError
   * (step `cgroup`).
   */
  static create(plan: CgroupPlan, made?: { name: string }): RunCgroup {
    const rc = new RunCgroup(plan)
    const name = made?.name ?? RunCgroup.newName()
    let step = { syscall: 'mkdir', path: '' }
    try {
      for (const d of plan.dirs) {
        const dir = join(d.parent, name)
        sweepStale(d.parent)
        step = { syscall: 'write', path: join(d.parent, 'cgroup.subtree_control') }
        enableControllers(d)
        step = { syscall: 'mkdir', path: dir }
        if (!made) mkdirSync(dir)
        rc.dirs.push(dir)
        step = { syscall: 'write', path: dir }
        writeLimits(dir, d)
        step = { syscall: 'open', path: join(dir, 'cgroup.procs') }
        rc.fds.push(openSync(join(dir, 'cgroup.procs'), fsc.O_WRONLY))
      }
    } catch (e) {
      rc.closeProcs()
      rc.removeDirs()
      const path = (e as NodeJS.ErrnoException).path ?? step.path // node:fs names the file that failed
      throw fromNativeError(e, { step: 'cgroup', syscall: step.syscall, detail: `could not make the run's cgroup (${path})` })
    }
    live.add(rc)
    return rc
  }

  private static newName(): string {
    return `cordon-${PIDNS}-${process.pid}-${++serial}`
  }

  /**
   * create() with the directories made on libuv's thread pool: an mkdir in
   * a cgroup hierarchy costs the kernel ~0.1 ms, spent off the event loop
   * when nothing waits for the cgroup yet (a cgroup made ahead, ahead.ts).
   */
  static async createAhead(plan: CgroupPlan): Promise<RunCgroup> {
    const name = RunCgroup.newName()
    const dirs = plan.dirs.map((d) => join(d.parent, name))
    // Not in `live` until create() below: a caller that exits meanwhile removes them from here.
    for (const dir of dirs) making.add(dir)
    try {
      const made = await Promise.allSettled(dirs.map((dir) => mkdir(dir)))
      const failed = made.find((m): m is PromiseRejectedResult => m.status === 'rejected')
      if (failed) {
        dirs.forEach((dir, i) => made[i]!.status === 'fulfilled' && removeTree(dir))
        throw fromNativeError(failed.reason, { step: 'cgroup', syscall: 'mkdir', detail: `could not make the run's cgroup (${(failed.reason as NodeJS.ErrnoException).path ?? name})` })
      }
      return RunCgroup.create(plan, { name })
    } finally {
      for (const dir of dirs) making.delete(dir)
    }
  }

  /** The open cgroup.procs files, for the launch request (closed here once the zygote has them). */
  procs(): number[] {
    return this.fds
  }

  closeProcs(): void {
    for (const fd of this.fds) {
      try {
        closeSync(fd)
      } catch {
        /* already closed */
      }
    }
    this.fds = []
  }

  /** Processes still in any of the run's cgroups. */
  private members(): number[] {
    const all = new Set<number>()
    for (const dir of this.dirs) for (const pid of pidsIn(readText(join(dir, 'cgroup.procs')))) all.add(pid)
    return [...all]
  }

  /**
   * Whether no process is left. With a v2 cgroup in the plan (v2, or a
   * hybrid host's controller-less one), its cgroup.events says so in one
   * small read: every process of the run joined it too, and `populated`
   * counts the cgroups below (cgroups(7), "Cgroups v2 cgroup.events").
   * Otherwise: every v1 cgroup.procs is listed.
   */
  private empty(): boolean {
    const v2 = this.plan.dirs.findIndex((d) => d.version === 2)
    const dir = v2 >= 0 ? this.dirs[v2] : undefined
    if (dir === undefined) return this.members().length === 0
    const events = readText(join(dir, 'cgroup.events'))
    // An unreadable file is not an empty cgroup: list the processes instead.
    return /^populated 0$/m.test(events) || (!/^populated 1$/m.test(events) && this.members().length === 0)
  }

  /** SIGKILL every process listed now; false when none was. */
  private signalAll(): boolean {
    const pids = this.members()
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        /* exited meanwhile */
      }
    }
    return pids.length > 0
  }

  private dirOf(controller: string): string | undefined {
    const i = this.plan.dirs.findIndex((d) => d.controllers.includes(controller))
    return i >= 0 ? this.dirs[i] : undefined
  }

  /**
   * Kill everything in the run's cgroups, at once where the kernel can:
   * cgroup.kill (v2, Linux 5.14) sends SIGKILL to every process in the
   * cgroup and its descendants, including ones forked while it runs. v1:
   * the freezer stops them all first, so none can fork or exit between the
   * list being read and the kill. Without either, the list is killed until
   * it stays empty (pids.max bounds how often a fork can win that race).
   */
  private killAll(): CgroupKill {
    const v2 = this.plan.dirs[0]?.version === 2 ? this.dirs[0] : undefined
    if (v2) {
      try {
        writeFileSync(join(v2, 'cgroup.kill'), '1')
        return 'cgroup.kill'
      } catch {
        /* before 5.14: no cgroup.kill; fall through */
      }
    }
    const freezer = this.dirOf('freezer')
    if (freezer && this.freezeAndKill(freezer)) return 'freezer'
    this.signalAll()
    return 'signal'
  }

  private freezeAndKill(dir: string): boolean {
    const state = join(dir, 'freezer.state')
    try {
      writeFileSync(state, 'FROZEN')
      // FREEZING until every task has stopped; bounded: a task in an
      // uninterruptible sleep keeps it there, and the kill goes ahead.
      for (let i = 0; i < 200 && readText(state).trim() !== 'FROZEN'; i++) sleepSync(1)
      this.signalAll()
      writeFileSync(state, 'THAWED') // a SIGKILLed task that is frozen dies only once thawed
      return true
    } catch {
      return false
    }
  }

  /** The counters as the kernel has them now (they only grow while the cgroup exists). */
  private counters(): LimitEvents {
    const pids = this.dirOf('pids')
    const mem = this.dirOf('memory')
    const cpu = this.dirOf('cpu')
    const memV2 = this.plan.dirs.find((d) => d.controllers.includes('memory'))?.version === 2
    return {
      pidsLimitHit: pids ? eventCount(readText(join(pids, 'pids.events')), 'max') : 0,
      // v1: memory.oom_control's oom_kill counter (Linux 4.13).
      oomKills: mem ? eventCount(readText(join(mem, memV2 ? 'memory.events' : 'memory.oom_control')), 'oom_kill') : 0,
      cpuThrottled: cpu ? eventCount(readText(join(cpu, 'cpu.stat')), 'nr_throttled') : 0,
    }
  }

  /**
   * The same directories for another run with the same plan, once this
   * one's is over (end() found them empty): no mkdir and no rmdir, each of
   * which waits for the kernel. The limits are written again; the new
   * run's counts start from where this one's ended. Only a plan without a
   * memory controller (a v1 memory cgroup keeps page cache charged to it,
   * which would count against the next run's limit).
   */
  recycle(counted: LimitEvents): RunCgroup | undefined {
    if (this.plan.dirs.some((d) => d.controllers.includes('memory'))) return undefined
    // Every cgroup listed, not only the v2 one empty() reads: a process that left the v2
    // cgroup (a command that can write the cgroup filesystem: reported as missing `cgroup`)
    // could still sit in a v1 one, and would be the next run's.
    if (this.members().length > 0) return undefined
    const next = new RunCgroup(this.plan)
    next.dirs.push(...this.dirs)
    next.baseline = counted
    try {
      this.plan.dirs.forEach((d, i) => writeLimits(next.dirs[i]!, d))
      for (const dir of next.dirs) next.fds.push(openSync(join(dir, 'cgroup.procs'), fsc.O_WRONLY))
    } catch {
      next.closeProcs()
      return undefined // this one's directories are then removed as usual
    }
    this.removal = Promise.resolve(true) // the directories are next's now
    live.delete(this)
    live.add(next)
    return next
  }

  private events(): { run: LimitEvents; counted: LimitEvents } {
    const counted = this.counters()
    const b = this.baseline
    return { run: { pidsLimitHit: counted.pidsLimitHit - b.pidsLimitHit, oomKills: counted.oomKills - b.oomKills, cpuThrottled: counted.cpuThrottled - b.cpuThrottled }, counted }
  }

  /** Remove the run's directories (a sub-cgroup the command made first); what is still busy stays, and false says so. */
  private removeDirs(): boolean {
    let ok = true
    for (const dir of [...this.dirs].reverse()) ok = removeTree(dir) && ok
    return ok
  }

  /** Kill everything in the run's cgroups now, without waiting (teardown() waits and removes them). */
  kill(): void {
    this.killed ??= this.empty() ? undefined : this.killAll()
  }

  /**
   * The end of a run: kill everything left in its cgroups, wait until they
   * are empty, read what the limits counted. The directories are removed
   * next, off the caller's path (removeTreeAsync says why); removed()
   * resolves once they are. Idempotent.
   */
  end(): Promise<LimitEvents> {
    this.done ??= (async () => {
      this.closeProcs()
      let empty = this.empty()
      if (!empty) {
        this.killed = this.killAll()
        const until = Date.now() + EMPTY_WAIT_MS
        while (!(empty = this.empty()) && Date.now() < until) {
          await new Promise((r) => setTimeout(r, POLL_MS))
          // Without cgroup.kill or the freezer, a fork may win the race with
          // the list: kill what is there again (pids.max bounds the rounds).
          if (this.killed === 'signal') this.signalAll()
        }
      }
      const { run, counted } = this.events()
      // Empty (a cgroup still busy after the wait is never used again) and
      // counted: used again for the next run, or removed.
      if (!(empty && this.reuse?.(this, counted))) void this.removed()
      return run
    })()
    return this.done
  }

  /** The directories removed (after end()): true, or false when one stayed busy (kept in `live` for the exit sweep). */
  removed(): Promise<boolean> {
    this.removal ??= (async () => {
      let ok = true
      for (const dir of [...this.dirs].reverse()) ok = (await removeTreeAsync(dir)) && ok
      if (ok) live.delete(this)
      return ok
    })()
    return this.removal
  }

  /** end(), then the directories removed. */
  async teardown(): Promise<LimitEvents> {
    const events = await this.end()
    await this.removed()
    return events
  }

  /**
   * Synchronous teardown for a run that never started, or at process exit:
   * kill, wait briefly, remove. A run whose teardown() has begun is left to
   * it — except at process exit, when the asynchronous one cannot finish.
   */
  teardownSync(waitMs = 200, evenIfStarted = false): void {
    if (this.done && !evenIfStarted) return
    this.closeProcs()
    if (this.members().length) this.killAll()
    for (let i = 0; i < waitMs && this.members().length; i++) sleepSync(1)
    if (this.removeDirs()) live.delete(this)
  }
}

// A caller that exits mid-run: its commands die with it (the launcher's
// parent-death signal), and what they left behind is killed here.
process.once('exit', () => {
  for (const dir of making) removeTree(dir) // empty: nothing joined a cgroup still being made
  for (const rc of live) rc.teardownSync(100, true)
})
