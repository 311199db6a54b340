/**
 * The run's cgroup plan: each limit in the v2 hierarchy when the caller's
 * v2 cgroup offers the controller, else in its v1 hierarchy; the values
 * each file gets; how the run is killed at its end; and which limits of a
 * profile are in force by default.
 */
import { describe, expect, it } from 'vitest'
import { cpuQuotaUs, planCgroups, type HostCgroups } from '../../../../../src/platform/linux/cgroup/cgroup-plan.js'
import { cgroupLimitsOf, DEFAULT_PIDS } from '../../../../../src/platform/linux/cgroup/attach.js'
import { describeHost, hasCgroupKill, writableCgroups } from '../../../../../src/platform/linux/cgroup/cgroup-support.js'
import { eventCount } from '../../../../../src/platform/linux/cgroup/cgroup-fs.js'
import { limitsSchema } from '../../../../../src/profile/schema.js'

const limits = { pids: 64, memory: 64 << 20, cpus: 0.5 }
const v2Host: HostCgroups = { v2: '/sys/fs/cgroup/app.slice/x.scope', v1: {}, v2Controllers: ['cpuset', 'cpu', 'io', 'memory', 'pids'] }
const hybrid: HostCgroups = {
  v2: '/sys/fs/cgroup/unified',
  v1: { pids: '/sys/fs/cgroup/pids', memory: '/sys/fs/cgroup/memory/p/1', cpu: '/sys/fs/cgroup/cpu,cpuacct', cpuacct: '/sys/fs/cgroup/cpu,cpuacct', freezer: '/sys/fs/cgroup/freezer' },
  v2Controllers: ['hugetlb'],
}

describe('planCgroups', () => {
  it('v2: one cgroup, every controller enabled by the parent, cgroup.kill', () => {
    const p = planCgroups(v2Host, limits)!
    expect(p).toMatchObject({ version: 'v2', kill: 'cgroup.kill', unplaced: [] })
    expect(p.dirs).toEqual([
      {
        version: 2,
        parent: v2Host.v2,
        controllers: ['pids', 'memory', 'cpu'],
        writes: [
          { file: 'pids.max', value: '64' },
          { file: 'memory.max', value: String(64 << 20) },
          { file: 'memory.swap.max', value: '0', optional: true },
          { file: 'cpu.max', value: '50000 100000' },
        ],
      },
    ])
  })

  it('hybrid (CI): a v2 cgroup with no controller for the kill, the limits in v1; memsw after the memory limit', () => {
    const p = planCgroups(hybrid, limits)!
    expect(p).toMatchObject({ version: 'hybrid', kill: 'cgroup.kill', unplaced: [] })
    expect(p.dirs.map((d) => [d.version, d.parent, d.controllers])).toEqual([
      [2, '/sys/fs/cgroup/unified', []],
      [1, '/sys/fs/cgroup/pids', ['pids']],
      [1, '/sys/fs/cgroup/memory/p/1', ['memory']],
      [1, '/sys/fs/cgroup/cpu,cpuacct', ['cpu']],
    ])
    expect(p.dirs[2]!.writes.map((w) => w.file)).toEqual(['memory.limit_in_bytes', 'memory.memsw.limit_in_bytes'])
    expect(p.dirs[3]!.writes).toEqual([{ file: 'cpu.cfs_period_us', value: '100000' }, { file: 'cpu.cfs_quota_us', value: '50000' }])
  })

  it('v1 only: the freezer stops the cgroup before the kill', () => {
    const p = planCgroups({ ...hybrid, v2: undefined, v2Controllers: [] } as HostCgroups, { pids: 10, memory: null, cpus: null })!
    expect(p.kill).toBe('freezer')
    expect(p.dirs.map((d) => d.controllers)).toEqual([['pids'], ['freezer']])
  })

  it('v1 without a freezer: SIGKILL until empty', () => {
    expect(planCgroups({ v1: { pids: '/p' }, v2Controllers: [] }, { pids: 10, memory: null, cpus: null })!.kill).toBe('signal')
  })

  it('a limit whose controller no usable hierarchy has is unplaced, the rest still applies', () => {
    const p = planCgroups({ v2: '/cg', v1: {}, v2Controllers: ['pids'] }, limits)!
    expect(p.unplaced).toEqual(['memory', 'cpu'])
    expect(p.dirs[0]!.writes).toEqual([{ file: 'pids.max', value: '64' }])
  })

  it('nothing limited: still a v2 cgroup for the kill; nothing at all without a hierarchy', () => {
    const none = { pids: null, memory: null, cpus: null }
    expect(planCgroups(v2Host, none)!.dirs).toEqual([{ version: 2, parent: v2Host.v2, controllers: [], writes: [] }])
    expect(planCgroups({ v1: {}, v2Controllers: [] }, limits)).toBeUndefined()
  })

  it('cpu quota: a fraction of the 100 ms period, at least the kernel minimum of 1 ms', () => {
    expect(cpuQuotaUs(2)).toBe(200_000)
    expect(cpuQuotaUs(0.0001)).toBe(1_000)
  })
})

describe('limits of a profile', () => {
  it(`pids defaults to ${DEFAULT_PIDS}; memory and cpus are not limited by default; max turns a limit off`, () => {
    expect(cgroupLimitsOf({})).toEqual({ limits: { pids: DEFAULT_PIDS, memory: null, cpus: null }, explicit: [] })
    expect(cgroupLimitsOf({ pids: 'max', memory: 1 << 30, cpus: 1.5 })).toEqual({ limits: { pids: null, memory: 1 << 30, cpus: 1.5 }, explicit: ['memory', 'cpu'] })
    expect(cgroupLimitsOf({ pids: 100 }).explicit).toEqual(['pids'])
  })

  it('the schema refuses a zero, negative or fractional process count, and a non-positive cpus', () => {
    for (const bad of [{ pids: 0 }, { pids: -1 }, { pids: 1.5 }, { memory: 0 }, { cpus: 0 }, { cpus: 'half' }, { pids: 'unlimited' }]) {
      expect(limitsSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false)
    }
    expect(limitsSchema.safeParse({ pids: 'max', memory: 1024, cpus: 0.25 }).success).toBe(true)
  })
})

describe('the host as this caller sees it', () => {
  it('drops hierarchies it cannot write in and names them', () => {
    const { usable, refused } = writableCgroups({ v2: '/u', v1: { pids: '/p', memory: '/m' } }, (d) => d === '/m')
    expect(usable).toEqual({ v1: { memory: '/m' } })
    expect(refused).toEqual(['/u', '/p'])
  })

  it('names the version and where each controller is', () => {
    expect(describeHost(hybrid)).toEqual({ version: 'hybrid', controllers: ['pids', 'memory', 'cpu'] })
    expect(describeHost(v2Host)).toEqual({ version: 'v2', controllers: ['pids', 'memory', 'cpu'] })
    expect(describeHost({ v1: { memory: '/m' }, v2Controllers: [] })).toEqual({ version: 'v1', controllers: ['memory'] })
  })

  it('cgroup.kill came with Linux 5.14', () => {
    expect(['5.13.0', '5.14.0-1', '6.1.0', '4.19.2'].map(hasCgroupKill)).toEqual([false, true, true, false])
  })

  it('reads the event counters', () => {
    expect(eventCount('max 3\n', 'max')).toBe(3)
    expect(eventCount('oom_kill_disable 0\nunder_oom 0\noom_kill 2\n', 'oom_kill')).toBe(2)
    expect(eventCount('low 0\nhigh 0\nmax 5\noom 1\noom_kill 1\noom_group_kill 0\n', 'oom_kill')).toBe(1)
    expect(eventCount('', 'max')).toBe(0)
  })
})
