/**
 * The next run's cgroup, joined ahead (src/platform/linux/cgroup/ahead.ts) —
 * the previous run's own once it is over and empty, used again: a run with
 * the same plan starts in it, with its limits and counts of its own; a run with
 * another plan never does — the zygote's waiting child, which joined it,
 * is replaced first — and the cgroup made ahead is then removed. What the
 * command reports of itself (/proc/self/cgroup, its pids.max) is the
 * evidence; this test process is the caller.
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { createSandbox, type Sandbox } from '../../../../../src/index.js'
import { planCgroups } from '../../../../../src/platform/linux/cgroup/cgroup-plan.js'
import { probeCgroups } from '../../../../../src/platform/linux/cgroup/cgroup-support.js'
import { RunCgroup } from '../../../../../src/platform/linux/cgroup/run-cgroup.js'
import { zygoteFor } from '../../../../../src/platform/linux/launch/zygote.js'
import { loadNative } from '../../../../../src/native/load.js'
import { eventually } from '../../../../helpers/processes.js'
import { describeWhere, itWhere, unless } from '../../../../helpers/requirements.js'
import { removeTempDirs, tempDir } from '../../../../helpers/temp.js'

const probe = probeCgroups()
const pidsParent = probe.ok ? probe.host.v1.pids : undefined
const missing = unless(
  probe.ok && pidsParent !== undefined,
  `this test reads the run's v1 pids cgroup, and this process has ${probe.ok ? 'no v1 pids hierarchy (a pure v2 host)' : `no cgroup (${probe.reason})`}: run it as root on a hybrid or v1 host`,
)
afterAll(() => removeTempDirs())

/** The cgroups below ours holding exactly one process, the zygote's waiting child. */
function aheadDirs(): string[] {
  if (!pidsParent) return []
  return readdirSync(pidsParent)
    .filter((n) => n.startsWith('cordon-') && n.includes(`-${process.pid}-`))
    .filter((n) => {
      try {
        const pids = readFileSync(join(pidsParent, n, 'cgroup.procs'), 'latin1').split('\n').filter(Boolean)
        return pids.length === 1 && readFileSync(`/proc/${pids[0]}/cmdline`, 'latin1').includes('--zygote')
      } catch {
        return false
      }
    })
}

/** The command's own v1 pids cgroup (its name below ours) and that cgroup's pids.max, as it reads them. */
async function whereItRuns(sb: Sandbox): Promise<{ name: string; max: string }> {
  const script = 'c=$(grep -E "^[0-9]+:pids:" /proc/self/cgroup | cut -d: -f3); echo "${c##*/}"; cat "/sys/fs/cgroup/pids$c/pids.max"'
  const r = await sb.run(['/bin/sh', '-c', script])
  expect(r.exitCode, r.stderr).toBe(0)
  const [name, max] = r.stdout.trim().split('\n')
  return { name: name!, max: max! }
}

describeWhere(missing, 'a cgroup made ahead for the next run', () => {
  const sandbox = (pids: number) => createSandbox({ cwd: tempDir('cordon-ahead-'), mode: 'landlock', compat: 'best-effort', limits: { pids } })

  it('the next run with the same limits starts in the cgroup that waited for it, and its limit is in force there', async () => {
    const sb = sandbox(77)
    const first = await whereItRuns(sb)
    expect(first.max).toBe('77')
    // The first run's own once it is over (it ended within LONG_RUN_MS), or one made while it ran.
    expect(await eventually(() => aheadDirs().length === 1)).toBe(true)
    const [waiting] = aheadDirs()
    const second = await whereItRuns(sb)
    expect(second).toEqual({ name: waiting, max: '77' })
    sb.close()
  })

  it("a cgroup used again counts from where the previous run's count ended", async () => {
    const plan = planCgroups(probe.ok ? probe.host : (undefined as never), { pids: 4, memory: null, cpus: null })!
    const first = RunCgroup.create(plan)
    let next: RunCgroup | undefined
    first.reuse = (rc, counted) => (next = rc.recycle(counted)) !== undefined
    // Joins (as the zygote's child does, through the inherited cgroup.procs files), then forks past pids.max 4.
    const joinAll = (rc: RunCgroup) => rc.procs().map((_, i) => `echo 0 >&${3 + i}`).join('; ')
    const inCgroup = (rc: RunCgroup, script: string) => {
      const r = spawnSync('sh', ['-c', `${joinAll(rc)}; ${script}`], { stdio: ['ignore', 'ignore', 'ignore', ...rc.procs()] })
      rc.closeProcs()
      return r.status
    }
    inCgroup(first, 'for i in 1 2 3 4 5 6 7 8; do sleep 2 & done 2>/dev/null; exit 0')
    expect((await first.end()).pidsLimitHit).toBeGreaterThan(0)
    expect(next).toBeDefined()
    expect(next!.dirs).toEqual(first.dirs) // the same directories, not removed
    expect(inCgroup(next!, 'true')).toBe(0)
    expect(await next!.teardown()).toEqual({ pidsLimitHit: 0, oomKills: 0, cpuThrottled: 0 })
    expect(next!.dirs.filter((d) => existsSync(d))).toEqual([])
  })

  const freezer = '/sys/fs/cgroup/freezer'
  itWhere(unless(existsSync(join(freezer, 'cgroup.procs')), 'no v1 freezer hierarchy at /sys/fs/cgroup/freezer to hold a process past the wait (a v2-only host)'), 'a cgroup that did not empty is not used again', async () => {
    const plan = planCgroups(probe.ok ? probe.host : (undefined as never), { pids: 64, memory: null, cpus: null })!
    const rc = RunCgroup.create(plan)
    rc.closeProcs()
    const held = join(freezer, `cordon-test-held-${process.pid}`)
    mkdirSync(held)
    // A process of the run that survives its end: frozen (as a task stuck in D state would be), it cannot die of the SIGKILL.
    const child = spawn('sleep', ['600'], { stdio: 'ignore' })
    try {
      for (const d of rc.dirs) writeFileSync(join(d, 'cgroup.procs'), String(child.pid))
      writeFileSync(join(held, 'cgroup.procs'), String(child.pid))
      writeFileSync(join(held, 'freezer.state'), 'FROZEN')
      let offered = false
      rc.reuse = () => (offered = true)
      await rc.end()
      expect(offered).toBe(false)
    } finally {
      writeFileSync(join(held, 'freezer.state'), 'THAWED')
      child.kill('SIGKILL')
      await eventually(() => {
        try {
          rmdirSync(held)
          return true
        } catch {
          return false
        }
      })
    }
    rc.teardownSync(1000, true) // the process thawed and killed: now it goes
    expect(rc.dirs.filter((d) => existsSync(d))).toEqual([])
  }, 20_000)

  it('a waiting child joined for one run never runs another launch: refused in the launcher, replaced by zygote.ts after a refused launch', async () => {
    const z = zygoteFor(loadNative().launcherPath)
    const rc = RunCgroup.create(planCgroups(probe.ok ? probe.host : (undefined as never), { pids: 65, memory: null, cpus: null })!)
    const owner = {}
    const out = join(tempDir('cordon-ahead-out-'), 'cgroup')
    const job = { kind: 'exec', file: '/bin/sh', args: ['-c', `grep -E "^[0-9]+:pids:" /proc/self/cgroup > ${out}`] } as const
    const nul = () => openSync('/dev/null', 'r+')
    // A launch of no run first: a child an earlier test's run left joined is replaced (zygote.ts start()).
    expect((await z.start({ kind: 'exec', file: '/bin/true', args: [] }, [nul(), nul(), nul(), nul(), nul()], [], undefined).exited).exitCode).toBe(0)
    // The launcher's own check: the caller claims the joined run's owner but sends no cgroup files.
    expect(z.joinAhead(rc.procs(), owner, () => {})).toBe(true)
    const lying = z.start(job, [nul(), nul(), nul(), nul(), nul()], [], owner)
    expect((await lying.exited).exitCode).toBe(125) // refused, nothing ran
    expect(existsSync(out)).toBe(false)
    // zygote.ts: a launch the zygote refuses (too many fields) leaves the joined child waiting; it is replaced.
    expect(z.joinAhead(rc.procs(), owner, () => {})).toBe(true)
    expect(() => z.start({ ...job, args: Array<string>(5000).fill('x') }, [nul(), nul(), nul(), nul(), nul()], rc.procs(), owner)).toThrow(/E2BIG/)
    const next = z.start(job, [nul(), nul(), nul(), nul(), nul()], [], undefined)
    expect((await next.exited).exitCode).toBe(0)
    expect(readFileSync(out, 'utf8')).not.toContain(rc.dirs[0]!.split('/').pop())
    rc.closeProcs()
    await rc.teardown()
  })

  it('a run with other limits does not start in it; it is removed', async () => {
    const a = sandbox(78)
    await whereItRuns(a)
    expect(await eventually(() => aheadDirs().length === 1)).toBe(true)
    const [made] = aheadDirs()
    const b = sandbox(79)
    const other = await whereItRuns(b)
    expect(other.name).not.toBe(made)
    expect(other.max).toBe('79')
    expect(await eventually(() => !existsSync(join(pidsParent!, made!)))).toBe(true)
    a.close()
    b.close()
  })
})
