/**
 * A run's cgroup torn down by each of the kill methods, on this host's real
 * hierarchies (as root): v2's cgroup.kill, the v1 freezer (stop, kill,
 * thaw), and SIGKILL until empty. A shell joins the cgroup and leaves a
 * double-forked, setsid() sleeper behind; after the teardown neither is
 * alive and the directories are gone.
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { planCgroups, type CgroupPlan, type HostCgroups } from '../../../../../src/platform/linux/cgroup/cgroup-plan.js'
import { probeCgroups } from '../../../../../src/platform/linux/cgroup/cgroup-support.js'
import { RunCgroup } from '../../../../../src/platform/linux/cgroup/run-cgroup.js'
import { CALLER_LEAF, removeTree, sweepStale, SWEEP_EVERY_MS, vacate } from '../../../../../src/platform/linux/cgroup/cgroup-fs.js'
import { describeWhere, itWhere, unless } from '../../../../helpers/requirements.js'
import { dead } from '../../../../helpers/processes.js'

const probe = probeCgroups()
const host: HostCgroups | undefined = probe.ok ? probe.host : undefined
const missing = unless(host !== undefined, `this test process gets no cgroup (${probe.ok ? '' : probe.reason}): run it as root, or in a delegated cgroup (systemd-run --user --scope -p Delegate=yes)`)

const alive = (pid: number): boolean => !dead(pid)

/**
 * Put a shell in the cgroup (it joins by itself, writing to the open
 * cgroup.procs files it inherits, as the zygote's child does) that starts a
 * setsid() sleeper and waits; resolves with the sleeper's pid.
 */
async function populate(rc: RunCgroup): Promise<number> {
  const fds = rc.procs()
  const join = fds.map((_, i) => `echo 0 >&${3 + i}`).join('; ')
  const child = spawn('sh', ['-c', `${join}; setsid sh -c 'echo $$; exec sleep 600' & wait`], { stdio: ['ignore', 'pipe', 'inherit', ...fds] })
  rc.closeProcs()
  const line = await new Promise<string>((resolve) => child.stdout!.once('data', (d: Buffer) => resolve(d.toString())))
  return Number(line.trim())
}

async function tornDown(plan: CgroupPlan): Promise<void> {
  const rc = RunCgroup.create(plan)
  expect(rc.dirs.every((d) => existsSync(d))).toBe(true)
  const sleeper = await populate(rc)
  expect(alive(sleeper)).toBe(true)
  expect(rc.dirs.every((d) => readFileSync(`${d}/cgroup.procs`, 'latin1').includes(String(sleeper)))).toBe(true)
  await rc.teardown()
  expect(alive(sleeper)).toBe(false)
  expect(rc.dirs.filter((d) => existsSync(d))).toEqual([])
}

describeWhere(missing, 'a run cgroup torn down', () => {
  const limits = { pids: 32, memory: null, cpus: null }

  itWhere(unless(host?.v2 !== undefined, 'no writable cgroup v2 hierarchy here (a v1-only host)'), 'with cgroup.kill (v2)', async () => {
    const plan = planCgroups({ ...host!, v1: {} }, { pids: null, memory: null, cpus: null })!
    expect(plan.kill).toBe('cgroup.kill')
    await tornDown(plan)
  })

  itWhere(unless(host?.v1.freezer !== undefined, 'no writable v1 freezer hierarchy here (a v2-only host)'), 'with the v1 freezer: stopped, killed, thawed', async () => {
    const plan = planCgroups({ ...host!, v2: undefined, v2Controllers: [] } as HostCgroups, limits)!
    expect(plan.kill).toBe('freezer')
    await tornDown(plan)
  })

  itWhere(unless(host?.v1.pids !== undefined, 'no writable v1 pids hierarchy here (a v2-only host)'), 'with SIGKILL until empty (v1 without a freezer)', async () => {
    const plan = planCgroups({ v1: { pids: host!.v1.pids! }, v2Controllers: [] }, limits)!
    expect(plan.kill).toBe('signal')
    await tornDown(plan)
  })

  it('a cgroup nobody joined is removed at once (a run that never started)', () => {
    const rc = RunCgroup.create(planCgroups(host!, limits)!)
    rc.teardownSync()
    expect(rc.dirs.filter((d) => existsSync(d))).toEqual([])
  })

  it("a dead caller's cgroups are removed by a later sweep in its pid namespace; a live caller's are kept; sweeps are a minute apart", () => {
    const pidns = /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))![1]
    const dead = spawnSync('true').pid!
    const plan = planCgroups(host!, limits)!
    const parent = plan.dirs[0]!.parent
    const stale = join(parent, `cordon-${pidns}-${dead}-1`)
    const live = join(parent, `cordon-${pidns}-${process.ppid}-1`)
    // This process's first run below `parent` swept it (the tests above): the next sweep is due a minute later.
    RunCgroup.create(plan).teardownSync()
    mkdirSync(stale)
    mkdirSync(live)
    try {
      const rc = RunCgroup.create(plan)
      rc.teardownSync()
      expect(existsSync(stale)).toBe(true) // not yet: swept less than a minute ago
      sweepStale(parent, Date.now() + SWEEP_EVERY_MS)
      expect(existsSync(stale)).toBe(false)
      expect(existsSync(live)).toBe(true)
    } finally {
      for (const d of [stale, live]) if (existsSync(d)) rmdirSync(d)
    }
  })

  it('a cgroup with a cgroup below it is removed deepest first; one with a process in it is kept and said busy', async () => {
    const rc = RunCgroup.create(planCgroups(host!, limits)!)
    const dir = rc.dirs[0]!
    mkdirSync(join(dir, 'sub'))
    const sleeper = spawn('sleep', ['60'], { stdio: 'ignore' })
    try {
      await new Promise((r) => sleeper.once('spawn', r))
      writeFileSync(join(dir, 'sub', 'cgroup.procs'), String(sleeper.pid))
      expect(removeTree(dir)).toBe(false)
      expect(existsSync(join(dir, 'sub'))).toBe(true)
      sleeper.kill('SIGKILL')
      await new Promise((r) => sleeper.once('exit', r))
      for (let i = 0; i < 100 && readFileSync(join(dir, 'sub', 'cgroup.procs'), 'latin1') !== ''; i++) await new Promise((r) => setTimeout(r, 5))
      expect(removeTree(dir)).toBe(true)
      expect(existsSync(dir)).toBe(false)
    } finally {
      sleeper.kill('SIGKILL')
      rc.teardownSync()
    }
  })

  itWhere(unless(host?.v2 !== undefined, 'no writable cgroup v2 hierarchy here (a v1-only host)'), "vacate: every process of a v2 cgroup moves into its leaf (the no-internal-process rule's way out)", async () => {
    const parent = join(host!.v2!, `cordon-vacate-test-${process.pid}`)
    mkdirSync(parent)
    const sleeper = spawn('sleep', ['60'], { stdio: 'ignore' })
    try {
      await new Promise((r) => sleeper.once('spawn', r))
      writeFileSync(join(parent, 'cgroup.procs'), String(sleeper.pid))
      vacate(parent)
      expect(readFileSync(join(parent, 'cgroup.procs'), 'latin1')).toBe('')
      expect(readFileSync(join(parent, CALLER_LEAF, 'cgroup.procs'), 'latin1').trim()).toBe(String(sleeper.pid))
    } finally {
      sleeper.kill('SIGKILL')
      await new Promise((r) => sleeper.once('exit', r))
      for (const d of [join(parent, CALLER_LEAF), parent]) if (existsSync(d)) rmdirSync(d)
    }
  })

  it('a limit value the kernel refuses undoes what was made and names the file', () => {
    const plan = planCgroups(host!, limits)!
    const bad: CgroupPlan = { ...plan, dirs: plan.dirs.map((d) => ({ ...d, writes: [...d.writes, { file: 'cgroup.procs', value: 'not-a-pid' }] })) }
    expect(() => RunCgroup.create(bad)).toThrow(expect.objectContaining({ name: 'SetupError', step: 'cgroup' }))
    for (const d of plan.dirs) expect(readdirSync(d.parent).filter((n) => n.startsWith('cordon-') && n.includes(`-${process.pid}-`))).toEqual([])
  })
})
