/**
 * Resource limits (threat-model.md § Resources): each run in a cgroup of its
 * own, with a process limit, a memory limit and a CPU limit from the
 * profile, killed whole at the run's end. Probes (probes/limits.c): a
 * bounded fork count, a real fork bomb, a memory hog, and a double-forked
 * setsid() sleeper — each also run unconfined, where it does get its way.
 *
 * A caller needs write access to its own cgroup (root, or a delegated
 * subtree); one without gets no cgroup, and a limit it asked for is refused
 * (default compat) or reported missing (best-effort) — the last group.
 */
import { spawnSync } from 'node:child_process'
import { randomInt } from 'node:crypto'
import { pidsWithArg } from '../../helpers/processes.js'
import { join } from 'node:path'
import { beforeAll, afterAll, describe, expect, it, type TestContext } from 'vitest'
import { describeEscape, Escape, outcomeOf } from '../../helpers/escape.js'
import { identities } from '../../helpers/identity.js'
import { repoRoot } from '../../helpers/paths.js'
import { describeWhere, skipNow } from '../../helpers/requirements.js'
import type { DriverReply } from '../../helpers/run-driver.js'
import { probeCgroups } from '../../../src/platform/linux/cgroup/cgroup-support.js'

/** Small, so that a fork bomb on a shared 2-core machine stays cheap. */
const PIDS = 64
const MEMORY = 64 << 20
const DELEGATE_FIX = 'run the tests as root, or the caller in a delegated cgroup (systemd-run --user --scope -p Delegate=yes)'


/** A `sleep` argument no other process has: found in /proc afterwards. */
const uniqueSeconds = () => `${300 + randomInt(1000)}.${randomInt(1_000_000)}`

const count = (reply: DriverReply) => Number(reply.result?.stdout.trim().split(' ')[1])
const events = (reply: DriverReply) => (reply.result as { limitEvents?: { pidsLimitHit: number; oomKills: number; cpuThrottled: number } } | undefined)?.limitEvents

describeEscape(
  'resource limits',
  (identity, mode) => {
    let e: Escape
    /** Whether this identity's runs get a cgroup here (root does; an unprivileged caller only with delegation). */
    let cgroupReason: string | undefined
    beforeAll(async () => {
      e = new Escape(identity, mode, 'limits')
      const probe = await e.confined(['true'], { options: { limits: { pids: 'max' } } })
      const l = probe.result?.enforcement?.limits
      cgroupReason = l?.cgroup ? undefined : `${identity.name} gets no cgroup here (${l?.reason ?? probe.error?.message}): ${DELEGATE_FIX}`
    })
    afterAll(() => e?.cleanup())
    const limits = (...args: string[]) => [e.probe('limits'), ...args]
    const needCgroup = (ctx: TestContext) => cgroupReason && skipNow(ctx, { reason: cgroupReason })
    const limited = (l: Record<string, unknown>) => ({ options: { limits: l } })

    describe('with a cgroup', () => {
      it('the report names the cgroup and the limits in force (pids 4096 by default)', async (ctx) => {
        needCgroup(ctx)
        const dflt = await e.confined(['true'])
        expect(dflt.result!.enforcement!.limits).toMatchObject({ pids: 4096, memory: null, cpus: null, cgroup: { kill: expect.any(String) } })
        expect(dflt.result!.enforcement!.mechanisms).toContain('cgroup')
        const set = await e.confined(['true'], limited({ pids: PIDS, memory: MEMORY, cpus: 0.5 }))
        expect(set.result!.enforcement!.limits).toMatchObject({ pids: PIDS, memory: MEMORY, cpus: 0.5 })
        expect(set.result!.enforcement!.missing.map((m) => m.protection)).not.toContain('cgroup')
      })

      it('the command is in the run\'s cgroup from its first instruction and holds no cgroup file', async (ctx) => {
        needCgroup(ctx)
        const script = 'cat /proc/self/cgroup; for f in /proc/self/fd/*; do readlink "$f"; done'
        const r = await e.confined(['sh', '-c', script], limited({ pids: PIDS, memory: MEMORY }))
        const out = r.result!.stdout
        const line = (re: RegExp) => out.split('\n').find((l) => re.test(l)) ?? ''
        // Landlock mode sees the host's paths; namespace mode (a cgroup
        // namespace) sees its own cgroup as the root.
        const own = mode === 'landlock' ? /\/cordon-\d+-\d+-\d+$/ : /:\/$/
        const lines = [/^0::/, /^\d+:pids:/, /^\d+:memory:/].map(line).filter(Boolean)
        expect(lines.length, out).toBeGreaterThan(0)
        for (const l of lines) expect(l, out).toMatch(own)
        expect(out).not.toMatch(/cgroup\.procs/)
      })

      it(`forking ${PIDS + 50} processes stops at the process limit (${PIDS}); unconfined all are made`, async (ctx) => {
        needCgroup(ctx)
        const [confined, plain] = await e.both(limits('fork', String(PIDS + 50)), limited({ pids: PIDS }))
        expect(outcomeOf(confined), JSON.stringify(confined.result)).toBe('EAGAIN')
        // The launcher (and bwrap, in namespace mode) count too.
        expect(count(confined)).toBeLessThan(PIDS)
        expect(count(confined)).toBeGreaterThan(PIDS / 2)
        expect(events(confined)?.pidsLimitHit).toBeGreaterThan(0)
        expect(plain.result!.stdout.trim()).toBe(`OK ${PIDS + 50}`)
      }, 60_000)

      it('a real fork bomb is held at the limit, the run ends, and nothing of it is left', async (ctx) => {
        needCgroup(ctx)
        const marker = `bomb-${randomInt(1e9)}`
        // The function forks two copies of itself in the background, forever;
        // the script lives two seconds more so the bomb meets the limit.
        const script = `b(){ b | b & }; b; sleep 2; exit 0 # ${marker}`
        const started = Date.now()
        const r = await e.confined(['sh', '-c', script, marker], { ...limited({ pids: PIDS, cpus: 0.5 }), runOptions: { timeout: 20_000 } })
        expect(r.error, JSON.stringify(r.error)).toBeUndefined()
        expect(Date.now() - started).toBeLessThan(20_000)
        expect(events(r)?.pidsLimitHit).toBeGreaterThan(0)
        expect(pidsWithArg(marker)).toEqual([])
      }, 60_000)

      it('a memory hog is OOM-killed at the memory limit and the result says so; unconfined it allocates', async (ctx) => {
        needCgroup(ctx)
        const [confined, plain] = await e.both(limits('alloc', '256'), limited({ memory: MEMORY }))
        expect(confined.result!.signal, JSON.stringify(confined.result)).toBe('SIGKILL')
        expect(events(confined)?.oomKills).toBeGreaterThan(0)
        expect(plain.result!.stdout.trim()).toBe('OK 256')
      }, 60_000)

      it('a busy loop gets about its CPU limit (cpus 0.1) and the result says it was held back; unconfined it runs', async (ctx) => {
        needCgroup(ctx)
        const wall = 1500
        const [confined, plain] = await e.both(limits('spin', String(wall)), limited({ cpus: 0.1 }))
        expect(outcomeOf(confined), JSON.stringify(confined.result)).toBe('OK')
        // 10 % of 1.5 s is 150 ms; the slack covers the first period and a loaded machine.
        expect(count(confined)).toBeLessThan(wall * 0.35)
        expect(events(confined)?.cpuThrottled).toBeGreaterThan(0)
        expect(outcomeOf(plain)).toBe('OK')
      }, 60_000)

      it('a double-forked, setsid() process is gone when the run ends; unconfined it outlives its parent', async (ctx) => {
        needCgroup(ctx)
        const secs = uniqueSeconds()
        const confined = await e.confined(limits('daemon', secs))
        expect(outcomeOf(confined)).toBe('OK')
        expect(pidsWithArg(secs)).toEqual([])
        const plainSecs = uniqueSeconds()
        const plain = await e.unconfined(limits('daemon', plainSecs))
        expect(outcomeOf(plain)).toBe('OK')
        const left = pidsWithArg(plainSecs)
        for (const pid of left) process.kill(pid, 'SIGKILL')
        expect(left.length).toBe(1)
      }, 60_000)
    })

    it("the command cannot write itself into another cgroup (the caller's); unconfined it can", async (ctx) => {
      needCgroup(ctx)
      const host = probeCgroups()
      const dir = host.ok ? (host.host.v2 ?? host.host.v1.pids) : undefined
      if (!dir) return skipNow(ctx, { reason: 'no v2 or v1 pids cgroup of the caller to move into' })
      await e.denial(limits('join', dir), mode === 'landlock' ? 'EACCES' : 'EROFS')
    })

    describe('a write root over the cgroup filesystem', () => {
      it("is reported (missing cgroup), and rightly: the command can leave the run's cgroup", async (ctx) => {
        needCgroup(ctx)
        if (mode === 'namespaces') skipNow(ctx, { reason: 'namespace mode refuses a write root over its own bwrap (/): write / runs in Landlock mode only' })
        const host = probeCgroups()
        const dir = host.ok ? (host.host.v2 ?? host.host.v1.pids) : undefined
        if (!dir) return skipNow(ctx, { reason: 'no v2 or v1 pids cgroup of the caller to move into' })
        const r = await e.confined(['sh', '-c', `echo $$ > ${dir}/cgroup.procs && cat /proc/self/cgroup`], { options: { profile: 'full-access', limits: { pids: PIDS } } })
        const missing = r.result!.enforcement!.missing.find((m) => m.protection === 'cgroup')
        expect(missing, JSON.stringify(r.result!.enforcement!.missing)).toMatchObject({ explicit: false, reason: expect.stringContaining('covers the cgroup filesystem') })
        const line = r.result!.stdout.split('\n').find((l) => (host.ok && host.host.v2 ? /^0::/ : /:pids:/).test(l))
        expect(line, r.result!.stdout + r.result!.stderr).toBeDefined()
        expect(line).not.toMatch(/cordon-/)
      })
    })

    describe('without a cgroup', () => {
      const noCgroup = (ctx: TestContext) => !cgroupReason && skipNow(ctx, { reason: `${identity.name} gets a cgroup here: the refusal needs a caller without one (an unprivileged user without delegation)` })

      it('a limit the profile sets is refused by default (UnsupportedError), runs and is reported under best-effort', async (ctx) => {
        noCgroup(ctx)
        const refused = await e.confined(['true'], { options: { limits: { pids: PIDS }, compat: undefined } })
        expect(refused.error).toMatchObject({ name: 'UnsupportedError' })
        expect(refused.error!.message).toMatch(/cgroup/)
        const ran = await e.confined(['true'], limited({ pids: PIDS }))
        expect(ran.result!.exitCode).toBe(0)
        const missing = ran.result!.enforcement!.missing.find((m) => m.protection === 'cgroup')
        expect(missing).toMatchObject({ explicit: true, fix: expect.stringContaining('Delegate=yes') })
        expect(ran.result!.enforcement!.limits).toMatchObject({ cgroup: null, pids: null })
      })

      it('the default process limit that cannot be applied is listed missing, not explicit (the default compat runs)', async (ctx) => {
        noCgroup(ctx)
        const r = await e.confined(['true'], { options: { compat: undefined } })
        expect(r.result!.exitCode).toBe(0)
        expect(r.result!.enforcement!.missing.find((m) => m.protection === 'cgroup')).toMatchObject({ explicit: false, reason: expect.stringContaining('pids 4096') })
        expect(r.result!.enforcement!.status).toBe('partial')
      })
    })
  },
  { concurrent: false },
)

/**
 * `cordon doctor` as each identity: whether cgroups are usable, which
 * version, which controllers — and it agrees with what a run then gets.
 */
for (const identity of identities()) {
  describeWhere(identity.missing, `cordon doctor on cgroups — caller: ${identity.name}`, () => {
    it('says whether runs get a cgroup, in which version and with which controllers; a run agrees', async () => {
      const doctor = (...args: string[]) => {
        const [file, ...rest] = identity.wrap([process.execPath, join(repoRoot, 'bin', 'cordon.js'), 'doctor', ...args])
        return spawnSync(file!, rest, { encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/', ...identity.env } })
      }
      const json = JSON.parse(doctor('--json').stdout) as { cgroups: { usable: boolean; version?: string; controllers: string[]; fix?: string } }
      const text = doctor().stdout.split('\n').find((l) => /^\s+\S+\s+cgroups\s/.test(l)) ?? ''
      const e = new Escape(identity, 'landlock', 'limits-doctor')
      try {
        const run = await e.confined(['true'])
        const limits = run.result!.enforcement!.limits!
        expect(json.cgroups.usable).toBe(limits.cgroup !== null)
        if (json.cgroups.usable) {
          expect(json.cgroups.version).toBe(limits.cgroup!.version)
          expect(json.cgroups.controllers).toContain('pids')
          expect(text).toMatch(new RegExp(`^\\s+(ok|WARN)\\s+cgroups\\s+${json.cgroups.version}; controllers: pids`))
        } else {
          expect(json.cgroups.fix).toMatch(/Delegate=yes/)
          expect(text).toMatch(/^\s+FAIL\s+cgroups\s+unusable: /)
        }
      } finally {
        e.cleanup()
      }
    }, 60_000)
  })
}
