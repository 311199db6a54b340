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
 * Now, once a launch with a cgroup is on its way, the next run's cgroup is
 * made (same plan: same hierarchies, same limits) and the zygote's next
 * child joins it while nothing waits for it; the next run with that plan
 * takes both.
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
 *  - It is a live RunCgroup like any other: killed and removed at the
 *    caller's exit, with the child waiting in it.
 */
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
 * After a launch with this plan: make the next run's cgroup and have the
 * zygote's waiting child join it — on a later turn of the event loop,
 * never on the launch's own path. Nothing is made when one is ready, or
 * when making it fails (the next run then makes its own, and reports).
 */
export function prepareAhead(z: AheadZygote, plan: CgroupPlan): void {
  if (ready.has(z) || scheduled.has(z)) return
  scheduled.add(z)
  setImmediate(() => void make(z, plan)).unref()
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
    if (ready.has(z) || z.dead) return void cgroup.teardown()
    const dropped = () => {
      if (ready.get(z)?.cgroup !== cgroup) return // taken by a run: that run owns it
      ready.delete(z)
      setTimeout(() => void cgroup.teardown(), DROP_DELAY_MS).unref()
    }
    if (!z.joinAhead(cgroup.procs(), cgroup, dropped)) return void cgroup.teardown()
    ready.set(z, { cgroup, key: planKey(plan) })
  } finally {
    scheduled.delete(z)
  }
}
