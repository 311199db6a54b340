/**
 * The next run's cgroup, joined ahead (src/platform/linux/cgroup/ahead.ts) —
 * the previous run's own once it is over and empty, used again: a run with
 * the same plan starts in it, with its limits and counts of its own; a run with
 * another plan never does — the zygote's waiting child, which joined it,
 * is replaced first — and the cgroup made ahead is then removed. What the
 * command reports of itself (/proc/self/cgroup, its pids.max) is the
 * evidence; this test process is the caller.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { createSandbox, type Sandbox } from '../../../../../src/index.js'
import { probeCgroups } from '../../../../../src/platform/linux/cgroup/cgroup-support.js'
import { eventually } from '../../../../helpers/processes.js'
import { describeWhere, unless } from '../../../../helpers/requirements.js'
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

  it("the next run with the same limits starts in it — the previous run's own, emptied — and its limit is in force there", async () => {
    const sb = sandbox(77)
    const first = await whereItRuns(sb)
    expect(first.max).toBe('77')
    expect(await eventually(() => aheadDirs().length === 1)).toBe(true)
    expect(aheadDirs()).toEqual([first.name]) // handed on: only the zygote's waiting child is in it
    const second = await whereItRuns(sb)
    expect(second).toEqual({ name: first.name, max: '77' })
    sb.close()
  })

  it("a run's counts are its own in a cgroup used again: the limit hit by one run is not the next run's", async () => {
    const sb = sandbox(20)
    // 40 background sleepers against pids.max 20: forks are refused (pids.events max grows).
    const hog = await sb.run(['/bin/sh', '-c', 'for i in $(seq 40); do sleep 5 & done 2>/dev/null; exit 0'])
    expect(hog.limitEvents?.pidsLimitHit).toBeGreaterThan(0)
    expect(await eventually(() => aheadDirs().length === 1)).toBe(true)
    const where = await whereItRuns(sb)
    const calm = await sb.run(['/bin/true'])
    expect(where.max).toBe('20')
    expect(calm.limitEvents).toEqual({ pidsLimitHit: 0, oomKills: 0, cpuThrottled: 0 })
    sb.close()
  }, 30_000)

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
