/**
 * A run's cgroup made ahead of its launch, and joined ahead by the
 * zygote's waiting spare child (native/linux/zygote-child.c, "join ahead").
 *
 * Why: moving a process into a cgroup waits for an RCU grace period
 * whenever no other move came just before (the kernel's
 * cgroup_threadgroup_rwsem is a per-CPU rwsem: percpu_down_write,
 * rcu_sync) — ~10 ms on a VM, measured per move with runs 30 ms apart, in
 * v1 and v2 hierarchies alike. An agent's commands are seconds apart, so
 * every run paid it between the caller's request and the command's start.
 * Now the zygote's next child joins the next run's cgroup while nothing
 * waits for it, and the next run with that plan (same hierarchies, same
 * limits) takes both. That cgroup is the previous run's own, once it is
 * over and empty (RunCgroup.recycle(): an mkdir and an rmdir also wait for
 * the kernel), or, while a run goes on past LONG_RUN_MS, a new one.
 *
 * What keeps this sound:
 *  - A cgroup made ahead is handed to one run only (taken once), and only
 *    for the same plan, limits included — written before the child joined.
 *  - The child checks at its launch that the request's cgroup.procs files
 *    are exactly the ones it joined (by file identity); otherwise it joins
 *    the request's own, as every child did before.
 *  - A launch of anything else — another plan, no cgroup, another run
 *    first — first has the zygote replace the joined child by a fresh one
 *    (zygote.ts start()), so no command ever starts in a cgroup made for
 *    another run; the cgroup made ahead is then removed.
 *  - A cgroup used again was found empty (every process of the previous
 *    run gone, cgroups below included) and counted; its limits are written
 *    again, and the next run's counts are the counters' growth since.
 *  - It is a live RunCgroup like any other: killed and removed at the
 *    caller's exit, with the child waiting in it.
 */
import type { LimitEvents } from '../../backend.js'
import type { CgroupPlan } from './cgroup-plan.js'
import { RunCgroup } from './run-cgroup.js'

/** The zygote as this module needs it (launch/zygote.ts). */
export interface AheadZygote {
  readonly dead: boolean
  /** The waiting child joins these cgroup.procs files now; false when it could not. `dropped`: another launch came first. */
  joinAhead(procs: readonly number[], owner: object, dropped: () => void): boolean
}

interface Ahead {
  cgroup: RunCgroup
  key: string
}

/** Made and joined, not yet handed out: at most one per zygote. */
const ready = new WeakMap<AheadZygote, Ahead>()
const scheduled = new WeakSet<AheadZygote>()
/** How long a dropped cgroup is left for its replaced child to be reaped before it is removed. */
const DROP_DELAY_MS = 100
/**
 * A run still going after this long has the next run's cgroup made anew;
 * one that ends sooner hands on its own (no mkdir, no rmdir: each waits
 * for the kernel). An agent's short commands end well within it.
 */
const LONG_RUN_MS = 20

/** Plans with the same hierarchies, parents and limits give the same key. */
export function planKey(plan: CgroupPlan): string {
  return JSON.stringify([plan.version, plan.kill, plan.dirs])
}

/** The cgroup made ahead for this plan on this zygote, handed out once; undefined when there is none for it. */
export function takeAhead(z: AheadZygote, plan: CgroupPlan): RunCgroup | undefined {
  const a = ready.get(z)
  if (!a || a.key !== planKey(plan)) return undefined
  ready.delete(z)
  return a.cgroup
}

/**
 * After a launch: the run's cgroup, once it is over, becomes the next
 * run's (offer()); a run still going after LONG_RUN_MS has a new one made
 * for the next run instead (concurrent runs, long commands), on a timer,
 * never on the launch's own path. Nothing is made when one is ready, or
 * when making it fails (the next run then makes its own, and reports).
 */
export function prepareAhead(z: AheadZygote, run: RunCgroup): void {
  run.reuse = (rc, counted) => offer(z, rc, counted)
  if (ready.has(z) || scheduled.has(z)) return
  scheduled.add(z)
  setTimeout(() => void make(z, run.plan), LONG_RUN_MS).unref()
}

/** A finished run's cgroup, empty, for the next run with its plan: true when it was taken (then it is not removed). */
function offer(z: AheadZygote, rc: RunCgroup, counted: LimitEvents): boolean {
  if (ready.has(z) || z.dead) return false
  const next = rc.recycle(counted)
  if (!next) return false
  // next holds the directories now: it is the ready one, or it removes them.
  if (!join(z, next)) void next.teardown()
  return true
}

/** Have the zygote's waiting child join `cgroup`; it is then the ready one. */
function join(z: AheadZygote, cgroup: RunCgroup): boolean {
  const dropped = () => {
    if (ready.get(z)?.cgroup !== cgroup) return // taken by a run: that run owns it
    ready.delete(z)
    setTimeout(() => void cgroup.teardown(), DROP_DELAY_MS).unref()
  }
  if (!z.joinAhead(cgroup.procs(), cgroup, dropped)) return false
  ready.set(z, { cgroup, key: planKey(cgroup.plan) })
  return true
}

async function make(z: AheadZygote, plan: CgroupPlan): Promise<void> {
  try {
    if (ready.has(z) || z.dead) return
    let cgroup: RunCgroup
    try {
      cgroup = await RunCgroup.createAhead(plan)
    } catch {
      return
    }
    if (ready.has(z) || z.dead || !join(z, cgroup)) void cgroup.teardown()
  } finally {
    scheduled.delete(z)
  }
}
