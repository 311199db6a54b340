/**
 * When namespaces cannot be had, each cause ends in the documented mode or
 * error, without changing the host's settings:
 *
 *   cause                 how it is produced here
 *   bwrap missing         the `bwrap` option names a path that does not exist
 *   AppArmor userns       a fake bwrap failing exactly like AppArmor makes it fail
 *   userns blocked        the caller runs in a user namespace whose max_user_namespaces is 0
 *   /proc unmountable     the caller runs in a mount namespace where part of /proc is covered
 *   bwrap in the workspace  a real bwrap copied into a writable root
 *
 *   mode 'auto'           → Landlock-only; the report names the cause, the fix, what is lacking
 *   mode 'namespaces'     → E_UNSUPPORTED with the cause and the fix (compat default and hard)
 *   … + best-effort       → Landlock-only, `namespaces` listed as missing
 */
import { chmodSync, copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Escape } from '../../../helpers/escape.js'
import { identities, type Identity } from '../../../helpers/identity.js'
import { namespacesMissing } from '../../../helpers/modes.js'
import { describeWhere, itWhere } from '../../../helpers/requirements.js'
import { runDriver, type DriverReply } from '../../../helpers/run-driver.js'
import { BWRAP_FAILURES, fakeBwrap, type FakeBwrap } from './fake-bwrap.js'

/** The same identity, but its programs start inside a fresh user namespace prepared by `setup` (a shell snippet). */
function inUserNamespace(identity: Identity, setup: string, extra: string[] = []): Identity {
  return { ...identity, wrap: (argv) => identity.wrap(['unshare', '--user', '--map-root-user', ...extra, '/bin/sh', '-c', `${setup} && exec "$@"`, 'sh', ...argv]) }
}

function expectFallback(r: DriverReply, cause: string, fixPart: string): void {
  expect(r.error, JSON.stringify(r.error)).toBeUndefined()
  const en = r.result!.enforcement!
  expect(en.mode).toBe('landlock')
  expect(en.modeReason).toContain(`auto: namespace mode is unavailable (${cause}`)
  expect(en.missing[0]).toMatchObject({ protection: 'namespaces', explicit: false })
  expect(en.missing[0]!.fix).toContain(fixPart)
  expect(en.missing[0]!.reason).toContain('protected paths')
  expect(en.missing[0]!.reason).toContain('pid/ipc')
  expect(en.status).toBe('partial')
  expect(r.result!.exitCode).toBe(0)
}

function expectRefusal(r: DriverReply, fixPart: string): void {
  expect(r.error, JSON.stringify(r.result ?? null)).toMatchObject({ code: 'E_UNSUPPORTED' })
  expect(r.error!.message).toContain('namespaces')
  expect(r.error!.message).toContain(fixPart)
}

// The fake-bwrap and missing-bwrap cases need no working bwrap; the others do.
describe.each(identities())('namespace-mode faults — caller: $name', (identity) => {
  const ns = namespacesMissing(identity)
  describeWhere(identity.missing, 'bwrap', () => {
    let e: Escape
    const fakes: FakeBwrap[] = []
    beforeAll(() => {
      e = new Escape(identity, 'namespaces', 'faults')
    })
    afterAll(() => {
      e?.cleanup()
      fakes.forEach((f) => f.cleanup())
    })
    const env = () => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: e.tree.home })
    const run = (options: Record<string, unknown>, who: Identity = identity) =>
      runDriver(who, { options: { cwd: e.tree.work, ...options }, command: ['/bin/true'] }, { env: env() })
    const fake = (stderr: string) => {
      const f = fakeBwrap(stderr)
      fakes.push(f)
      return f.path
    }

    describe('bwrap missing', () => {
      const bwrap = '/nonexistent/cordon-test/bwrap'
      it("auto → Landlock-only, with the install command", async () => expectFallback(await run({ mode: 'auto', bwrap }), 'not-installed', 'apt-get install bubblewrap'))
      it('namespaces → refused (compat default)', async () => expectRefusal(await run({ mode: 'namespaces', bwrap }), 'apt-get install bubblewrap'))
      it('namespaces + hard → refused', async () => expectRefusal(await run({ mode: 'namespaces', bwrap, compat: 'hard' }), 'apt-get install bubblewrap'))
      it('namespaces + best-effort → Landlock-only, namespaces listed as missing (explicit)', async () => {
        const r = await run({ mode: 'namespaces', bwrap, compat: 'best-effort' })
        expect(r.result!.enforcement!.mode).toBe('landlock')
        expect(r.result!.enforcement!.missing[0]).toMatchObject({ protection: 'namespaces', explicit: true })
      })
      it('a relative bwrap path is never looked up', async () => expectRefusal(await run({ mode: 'namespaces', bwrap: 'bwrap' }), 'absolute path'))
    })

    describe('AppArmor userns restriction (fake bwrap: loopback RTM_NEWADDR)', () => {
      it('auto → Landlock-only, with the AppArmor fix', async () => expectFallback(await run({ mode: 'auto', bwrap: fake(BWRAP_FAILURES.apparmor) }), 'apparmor', 'apparmor'))
      it('namespaces → refused with the AppArmor fix', async () => expectRefusal(await run({ mode: 'namespaces', bwrap: fake(BWRAP_FAILURES.apparmor) }), 'apparmor_parser'))
    })

    describeWhere(ns, 'user namespaces blocked (max_user_namespaces=0 inside a user namespace)', () => {
      const blocked = () => inUserNamespace(identity, 'echo 0 > /proc/sys/user/max_user_namespaces')
      it('auto → Landlock-only, with the sysctl', async () => expectFallback(await run({ mode: 'auto' }, blocked()), 'max-user-namespaces', 'user.max_user_namespaces'))
      it('namespaces → refused with the sysctl', async () => expectRefusal(await run({ mode: 'namespaces' }, blocked()), 'user.max_user_namespaces'))
    })

    describe('/proc not mountable (part of /proc covered, as container runtimes do)', () => {
      const masked = () => inUserNamespace(identity, 'mount -t tmpfs none /proc/tty', ['--mount'])
      itWhere(ns, 'auto → Landlock-only, with the container flag', async () => expectFallback(await run({ mode: 'auto' }, masked()), 'proc', 'systempaths=unconfined'))
      itWhere(ns, 'namespaces → refused', async () => expectRefusal(await run({ mode: 'namespaces' }, masked()), 'systempaths=unconfined'))
      it('the same failure from a fake bwrap is diagnosed the same way', async () => expectFallback(await run({ mode: 'auto', bwrap: fake(BWRAP_FAILURES.proc) }), 'proc', 'systempaths=unconfined'))
    })

    describeWhere(ns, 'bwrap inside a writable root', () => {
      it('auto → Landlock-only: the sandbox could replace it for the next launch', async () => {
        const copy = join(e.tree.dir('work/bin'), 'bwrap')
        copyFileSync('/usr/bin/bwrap', copy)
        chmodSync(copy, 0o755)
        expectFallback(await run({ mode: 'auto', bwrap: copy }), 'bwrap-in-writable-root', '/usr/bin/bwrap')
      })
    })

    itWhere(ns, 'with namespaces available, auto picks them and says why', async () => {
      // No process limit: a caller without a delegated cgroup could not apply it (listed missing).
      const r = await run({ mode: 'auto', limits: { pids: 'max' } })
      expect(r.result!.enforcement).toMatchObject({ mode: 'namespaces', status: 'full', missing: [] })
      expect(r.result!.enforcement!.modeReason).toMatch(/^auto: /)
    })
  })
})
