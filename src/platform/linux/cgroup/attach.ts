/**
 * A launch's cgroup: the limits a profile asks for, whether they can be
 * applied here, the run's cgroup itself (made when the launch is planned,
 * so that a failure is known before the compat decision), and the report.
 *
 * Never silent: a limit that cannot be applied is a `missing` entry,
 * explicit when the profile set it (the default compat then refuses the
 * run with an UnsupportedError; `best-effort` runs and reports it), not
 * explicit for the default process limit.
 */
import type { Profile } from '../../../profile/schema.js'
import type { MissingProtection, ResourceLimits } from '../../enforcement.js'
import { planCgroups, type CgroupController, type CgroupLimits } from './cgroup-plan.js'
import { DELEGATE_FIX, probeCgroups } from './cgroup-support.js'
import { RunCgroup } from './run-cgroup.js'
import { takeAhead, type AheadZygote } from './ahead.js'

/**
 * Processes and threads a run may have at once unless its profile says
 * otherwise. Enough for a parallel test run: vitest or jest with a worker
 * per core on a 64-core machine is ~64 Node processes of ~11 threads each
 * (V8's 4 platform threads, libuv's 4, the main one and helpers), ~700
 * tasks, plus compilers and shells; 4096 leaves several times that, and is
 * close to systemd's DefaultTasksMax (15 % of the default pid_max 32768,
 * i.e. 4915). A fork bomb stops there instead of at the host's pid_max.
 */
export const DEFAULT_PIDS = 4096

type Limits = Profile['limits']

/** The cgroup limits in force for a profile's limits, and which of them the profile set itself. */
export function cgroupLimitsOf(l: Limits): { limits: CgroupLimits; explicit: CgroupController[] } {
  const value = (v: number | 'max' | undefined, dflt: number | null) => (v === 'max' ? null : (v ?? dflt))
  const limits = { pids: value(l.pids, DEFAULT_PIDS), memory: value(l.memory, null), cpus: value(l.cpus, null) }
  const explicit: CgroupController[] = []
  if (typeof l.pids === 'number') explicit.push('pids')
  if (typeof l.memory === 'number') explicit.push('memory')
  if (typeof l.cpus === 'number') explicit.push('cpu')
  return { limits, explicit }
}

export interface CgroupAttachment {
  limits: ResourceLimits
  missing: MissingProtection[]
  notes: string[]
  /** The run's cgroup (a launch, not a report). */
  cgroup?: RunCgroup
}

const named = (c: CgroupController, l: CgroupLimits) => (c === 'cpu' ? `cpus ${l.cpus}` : `${c} ${l[c]}`)

function unavailable(limits: CgroupLimits, explicit: CgroupController[], reason: string, fix: string): CgroupAttachment {
  const asked = (['pids', 'memory', 'cpu'] as const).filter((c) => (c === 'cpu' ? limits.cpus : limits[c]) !== null)
  const none = { cgroup: null, pids: null, memory: null, cpus: null, reason }
  const teardown = "the run's end relies on the launcher's supervisor alone to kill what the command left behind"
  // Every limit turned off (`max`): only the cgroup-wide kill is lost, a note.
  if (asked.length === 0) return { limits: none, missing: [], notes: [`no cgroup for the run (${reason}); ${teardown}`] }
  const what = `the limits ${asked.map((c) => named(c, limits)).join(', ')} are not enforced`
  return {
    limits: none,
    missing: [{ protection: 'cgroup', explicit: explicit.length > 0, reason: `no cgroup for the run: ${reason}; ${what}, and ${teardown}`, fix }],
    notes: [],
  }
}

const overlaps = (a: string, b: string) => a === b || a === '/' || b === '/' || a.startsWith(`${b}/`) || b.startsWith(`${a}/`)

/**
 * A write root over the cgroup filesystem (a root caller with `write: ['/']`
 * in Landlock mode): the command may write its own pid into another
 * cgroup's cgroup.procs and leave the run's — its limits and the kill at
 * its end. Not stopped, so said.
 */
function escapeRoute(parents: readonly string[], writeRoots: readonly string[]): MissingProtection | undefined {
  const root = writeRoots.find((w) => parents.some((p) => overlaps(w, p)))
  if (!root) return undefined
  return {
    protection: 'cgroup',
    explicit: false,
    reason: `the write root ${root} covers the cgroup filesystem: the command can move its processes out of the run's cgroup (${parents.join(', ')}), beyond its limits and the kill at the run's end`,
    fix: 'use write roots that do not cover /sys/fs/cgroup (a narrower one than /)',
  }
}

/**
 * Plan (and, for a launch, make) the run's cgroup for a profile's limits.
 * `ahead`: the zygote the launch goes to, which may hold one made ahead
 * for this plan (ahead.ts).
 */
export function attachCgroup(profileLimits: Limits, writeRoots: readonly string[], materialize: boolean, ahead?: AheadZygote): CgroupAttachment {
  const { limits, explicit } = cgroupLimitsOf(profileLimits)
  const probe = probeCgroups()
  if (!probe.ok) return unavailable(limits, explicit, probe.reason, probe.fix)
  const plan = planCgroups(probe.host, limits)
  if (!plan) return unavailable(limits, explicit, 'no usable cgroup hierarchy', DELEGATE_FIX)
  let cgroup: RunCgroup | undefined
  if (materialize) {
    try {
      cgroup = (ahead && takeAhead(ahead, plan)) ?? RunCgroup.create(plan)
    } catch (e) {
      return unavailable(limits, explicit, (e as Error).message, DELEGATE_FIX)
    }
  }
  const placed = (c: CgroupController) => !plan.unplaced.includes(c)
  const out: CgroupAttachment = {
    limits: {
      cgroup: { version: plan.version, kill: plan.kill },
      pids: placed('pids') ? limits.pids : null,
      memory: placed('memory') ? limits.memory : null,
      cpus: placed('cpu') ? limits.cpus : null,
    },
    missing: [],
    notes: probe.notes,
    ...(cgroup ? { cgroup } : {}),
  }
  const route = escapeRoute(plan.dirs.map((d) => d.parent), writeRoots)
  if (route) out.missing.push(route)
  if (plan.unplaced.length) {
    const reason = `no cgroup hierarchy this caller may write in has the ${plan.unplaced.join(', ')} controller: ${plan.unplaced.map((c) => named(c, limits)).join(', ')} not enforced`
    out.limits.reason = reason
    out.missing.push({ protection: 'cgroup-limits', explicit: plan.unplaced.some((c) => explicit.includes(c)), reason, fix: 'enable the controller for the caller\'s cgroup (cgroup.subtree_control of its parent, or Delegate=yes)' })
  }
  return out
}
