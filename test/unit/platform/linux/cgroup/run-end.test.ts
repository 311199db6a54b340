/**
 * Every way a run ends leaves nothing of its cgroup: a normal exit, a
 * timeout and an abort (a setsid() sleeper left running is killed with
 * it), and a run refused after it was planned (its cgroup was made and
 * nobody joined). This test process is the caller, so its runs' cgroups
 * are the `cordon-<pidns>-<our pid>-<n>` directories below its own.
 *
 * The run's processes are gone when its result is; its empty directories
 * are removed right after (an rmdir waits for the kernel, run-cgroup.ts), so
 * their removal is awaited. The next run's cgroup, made ahead and holding
 * only the zygote's waiting child (cgroup/ahead.ts), is not the run's.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { createSandbox } from '../../../../../src/index.js'
import { probeCgroups } from '../../../../../src/platform/linux/cgroup/cgroup-support.js'
import { eventually } from '../../../../helpers/processes.js'
import { describeWhere, unless } from '../../../../helpers/requirements.js'
import { removeTempDirs, tempDir } from '../../../../helpers/temp.js'

const probe = probeCgroups()
const missing = unless(probe.ok, `this test process gets no cgroup (${probe.ok ? '' : probe.reason}): run it as root, or in a delegated cgroup (systemd-run --user --scope -p Delegate=yes)`)
afterAll(() => removeTempDirs())

/** One process, and that one the zygote's waiting child (forked from `cordon-launcher --zygote`, no exec yet). */
function heldAhead(dir: string): boolean {
  try {
    const pids = readFileSync(join(dir, 'cgroup.procs'), 'latin1').split('\n').filter(Boolean)
    return pids.length === 1 && readFileSync(`/proc/${pids[0]}/cmdline`, 'latin1').includes('--zygote')
  } catch {
    return false // gone meanwhile
  }
}

/** This process's run cgroups still there, but for one made ahead for the next run. */
function ours(): string[] {
  if (!probe.ok) return []
  const parents = [probe.host.v2, ...Object.values(probe.host.v1)].filter((d): d is string => d !== undefined)
  return [...new Set(parents)].flatMap((p) => readdirSync(p).filter((n) => n.startsWith('cordon-') && n.includes(`-${process.pid}-`) && !heldAhead(join(p, n))))
}

const noneLeft = async () => expect(await eventually(() => ours().length === 0), ours().join(', ')).toBe(true)

function running(marker: string): boolean {
  return readdirSync('/proc').some((pid) => {
    try {
      return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(marker)
    } catch {
      return false
    }
  })
}

// A sleeper that left the command's session, then a command that waits.
const daemonThen = (marker: string) => ['sh', '-c', `setsid sleep ${marker} </dev/null >/dev/null 2>&1 & sleep 60`]
const unique = () => `${400 + Math.floor(Math.random() * 1000)}.${process.pid}${Math.floor(Math.random() * 1e6)}`

describeWhere(missing, "the end of a run removes its cgroup", () => {
  const sandbox = () => createSandbox({ cwd: tempDir('cordon-run-end-'), mode: 'landlock', compat: 'best-effort', limits: { pids: 64, memory: 256 << 20 } })

  it('after a normal exit', async () => {
    const sb = sandbox()
    const r = await sb.run(['true'])
    expect(r.enforcement.limits?.cgroup).not.toBeNull()
    expect(r.limitEvents).toEqual({ pidsLimitHit: 0, oomKills: 0, cpuThrottled: 0 })
    await noneLeft()
    sb.close()
  })

  it('after a timeout, with what the command left running', async () => {
    const sb = sandbox()
    const marker = unique()
    const r = await sb.run(daemonThen(marker), { timeout: 500 })
    expect(r.timedOut).toBe(true)
    expect(running(marker)).toBe(false)
    await noneLeft()
    sb.close()
  }, 30_000)

  it('after an abort', async () => {
    const sb = sandbox()
    const marker = unique()
    const ac = new AbortController()
    const p = sb.run(daemonThen(marker), { signal: ac.signal })
    setTimeout(() => ac.abort(), 300)
    expect((await p).isCanceled).toBe(true)
    expect(running(marker)).toBe(false)
    await noneLeft()
    sb.close()
  }, 30_000)

  it('after a run refused once it was planned (its cwd is not there)', async () => {
    const sb = sandbox()
    await expect(sb.run(['true'], { cwd: '/nonexistent-cordon-cwd' })).rejects.toThrow()
    await noneLeft()
    sb.close()
  })
})
