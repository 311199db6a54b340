/**
 * What one run's cgroups are (cgroups(7)): which hierarchy each limit goes
 * to, which files get which values, and how the run is killed at its end.
 * Pure: the caller's cgroups (hierarchy.ts) and the limits in, a plan out.
 *
 * v2 first: a controller the caller's v2 cgroup offers its children
 * (cgroup.controllers) is used there; otherwise the v1 hierarchy that has
 * it. A v2 cgroup is made even with no controller at all, for cgroup.kill
 * (Linux 5.14), which ends every process in it at once — the one teardown
 * a double fork or setsid() cannot outrun. Without v2, the v1 freezer
 * stops the whole cgroup first so that nothing forks between reading the
 * list of processes and killing them.
 */
import type { CallerCgroups } from './hierarchy.js'

/** The cgroup limits of a run; null: not limited. */
export interface CgroupLimits {
  /** Processes and threads at once (pids.max). */
  pids: number | null
  /** Bytes of memory (memory.max; swap is not a way around it). */
  memory: number | null
  /** CPUs' worth of time (cpu.max): 0.5 is half of one CPU, 2 two whole ones. */
  cpus: number | null
}

export type CgroupController = 'pids' | 'memory' | 'cpu'
const CONTROLLERS: readonly CgroupController[] = ['pids', 'memory', 'cpu']

export interface CgroupWrite {
  file: string
  value: string
  /** Written only where the file exists (swap accounting may be off). */
  optional?: boolean
}

export interface CgroupDirPlan {
  version: 1 | 2
  /** The caller's cgroup: the run's cgroup is made below it, so the host's own limits on the caller still bind. */
  parent: string
  /** v2: controllers the parent must enable for its children (cgroup.subtree_control); v1: the hierarchy's. */
  controllers: string[]
  writes: CgroupWrite[]
}

export type CgroupKill = 'cgroup.kill' | 'freezer' | 'signal'

export interface CgroupPlan {
  dirs: CgroupDirPlan[]
  kill: CgroupKill
  version: 'v1' | 'v2' | 'hybrid'
  /** Limits asked for that no hierarchy here has the controller for. */
  unplaced: CgroupController[]
}

/** The caller's cgroups, and the controllers its v2 cgroup can hand to children. */
export interface HostCgroups extends CallerCgroups {
  v2Controllers: readonly string[]
}

/** cpu.max's period (the kernel's default, 100 ms) and smallest quota (1 ms). */
export const CPU_PERIOD_US = 100_000
const MIN_QUOTA_US = 1_000

export function cpuQuotaUs(cpus: number): number {
  return Math.max(MIN_QUOTA_US, Math.round(cpus * CPU_PERIOD_US))
}

function limitWrites(version: 1 | 2, c: CgroupController, limits: CgroupLimits): CgroupWrite[] {
  if (c === 'pids') return limits.pids === null ? [] : [{ file: 'pids.max', value: String(limits.pids) }]
  if (c === 'memory') {
    if (limits.memory === null) return []
    const bytes = String(limits.memory)
    // Without these a hog pages out past the limit instead of being stopped.
    // v1: memsw is memory + swap, so it equals the limit; it must be set
    // after limit_in_bytes, which it may never be below.
    if (version === 2) return [{ file: 'memory.max', value: bytes }, { file: 'memory.swap.max', value: '0', optional: true }]
    return [{ file: 'memory.limit_in_bytes', value: bytes }, { file: 'memory.memsw.limit_in_bytes', value: bytes, optional: true }]
  }
  if (limits.cpus === null) return []
  const quota = String(cpuQuotaUs(limits.cpus))
  if (version === 2) return [{ file: 'cpu.max', value: `${quota} ${CPU_PERIOD_US}` }]
  return [{ file: 'cpu.cfs_period_us', value: String(CPU_PERIOD_US) }, { file: 'cpu.cfs_quota_us', value: quota }]
}

function isSet(limits: CgroupLimits, c: CgroupController): boolean {
  return (c === 'cpu' ? limits.cpus : limits[c]) !== null
}

/** The run's cgroups here, or undefined when no hierarchy can hold it. */
export function planCgroups(host: HostCgroups, limits: CgroupLimits): CgroupPlan | undefined {
  const v2: CgroupDirPlan | undefined = host.v2 ? { version: 2, parent: host.v2, controllers: [], writes: [] } : undefined
  const v1 = new Map<string, CgroupDirPlan>()
  const unplaced: CgroupController[] = []
  for (const c of CONTROLLERS) {
    if (!isSet(limits, c)) continue
    if (v2 && host.v2Controllers.includes(c)) {
      v2.controllers.push(c)
      v2.writes.push(...limitWrites(2, c, limits))
      continue
    }
    const parent = host.v1[c]
    if (!parent) {
      unplaced.push(c)
      continue
    }
    // Joint mounts (cpu,cpuacct) are one hierarchy: one directory.
    const dir = v1.get(parent) ?? { version: 1 as const, parent, controllers: [], writes: [] }
    dir.controllers.push(c)
    dir.writes.push(...limitWrites(1, c, limits))
    v1.set(parent, dir)
  }
  let kill: CgroupKill = 'signal'
  if (v2) kill = 'cgroup.kill'
  else if (host.v1.freezer) {
    kill = 'freezer'
    const dir = v1.get(host.v1.freezer) ?? { version: 1 as const, parent: host.v1.freezer, controllers: [], writes: [] }
    dir.controllers.push('freezer')
    v1.set(host.v1.freezer, dir)
  }
  const dirs = [...(v2 ? [v2] : []), ...v1.values()]
  if (dirs.length === 0) return undefined
  const version = !v2 ? 'v1' : v1.size === 0 ? 'v2' : 'hybrid'
  return { dirs, kill, version, unplaced }
}
