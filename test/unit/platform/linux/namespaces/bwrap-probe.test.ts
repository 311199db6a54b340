/**
 * Namespace-mode availability: locating bwrap by absolute path only, version
 * warnings, and each failure a host can produce ending in its cause and fix
 * (fake bwrap executables; nothing on the host changes).
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { NativeProbe } from '../../../../../src/native/binding.js'
import { bwrapInWritableRoot, locateBwrap } from '../../../../../src/platform/linux/namespaces/bwrap-locate.js'
import { bwrapWarnings, featureWarnings, parseBwrapVersion, probeNamespacesUncached, versionBelow } from '../../../../../src/platform/linux/namespaces/bwrap-probe.js'
import { BWRAP_FAILURES, fakeBwrap, type FakeBwrap } from '../../../../escape/linux/namespaces/fake-bwrap.js'

const hostProbe: NativeProbe = {
  landlockAbi: 7, landlockErrno: 0, landlockErrata: null, seccomp: true, seccompErrno: 0,
  userns: true, usernsErrno: 0, usernsStep: null, maxUserNamespaces: 15000, unprivilegedUsernsClone: null,
  apparmorRestrictUserns: null, noNewPrivs: false, kernel: '6.18', machine: 'x86_64',
}

const fakes: FakeBwrap[] = []
const fake = (stderr: string, opts?: Parameters<typeof fakeBwrap>[1]) => {
  const f = fakeBwrap(stderr, opts)
  fakes.push(f)
  return f.path
}
afterEach(() => fakes.splice(0).forEach((f) => f.cleanup()))

describe('locating bwrap', () => {
  it('refuses a relative path (it would be looked up from the working directory)', () => {
    const r = locateBwrap('bwrap')
    expect(r).toMatchObject({ ok: false, cause: 'not-absolute' })
  })

  it('reports a missing explicit bwrap as not installed, with the install command', () => {
    const r = locateBwrap('/nonexistent/cordon/bwrap')
    expect(r).toMatchObject({ ok: false, cause: 'not-installed' })
    if (!r.ok) expect(r.fix).toContain('install bubblewrap')
  })

  it('flags a bwrap that lies inside a writable root, by its path or its real path', () => {
    expect(bwrapInWritableRoot({ path: '/work/bin/bwrap', realPath: '/work/bin/bwrap' }, ['/work'])).toBe('/work')
    expect(bwrapInWritableRoot({ path: '/usr/bin/bwrap', realPath: '/work/bwrap' }, ['/work'])).toBe('/work')
    expect(bwrapInWritableRoot({ path: '/usr/bin/bwrap', realPath: '/usr/bin/bwrap' }, ['/work'])).toBeUndefined()
  })
})

describe('versions', () => {
  it('parses bwrap --version output', () => {
    expect(parseBwrapVersion('bubblewrap 0.8.0\n')).toEqual([0, 8, 0])
    expect(parseBwrapVersion('bubblewrap 0.11')).toEqual([0, 11, 0])
    expect(parseBwrapVersion('nonsense')).toBeNull()
  })

  it('compares versions component-wise', () => {
    expect(versionBelow([0, 9, 0], [0, 12, 0])).toBe(true)
    expect(versionBelow([0, 12, 0], [0, 12, 0])).toBe(false)
    expect(versionBelow([1, 0, 0], [0, 12, 0])).toBe(false)
  })

  it('warns about the mount-setup symlink bug before 0.12.0 and about setuid installs', () => {
    expect(bwrapWarnings('0.8.0', false).map((w) => w.detail).join()).toContain('CVE-2026-87766')
    expect(bwrapWarnings('0.12.0', false)).toEqual([])
    expect(bwrapWarnings('0.12.0', true).map((w) => w.detail).join()).toContain('setuid')
    expect(bwrapWarnings(null, false)).toHaveLength(1)
  })
})

describe('the trial run and its diagnosis', () => {
  it('bwrap missing → not-installed', () => {
    expect(probeNamespacesUncached('/nonexistent/cordon/bwrap', hostProbe)).toMatchObject({ ok: false, cause: 'not-installed' })
  })

  it('AppArmor userns restriction (loopback RTM_NEWADDR) → apparmor, with the profile fix', () => {
    const r = probeNamespacesUncached(fake(BWRAP_FAILURES.apparmor), { ...hostProbe, apparmorRestrictUserns: 1 })
    expect(r).toMatchObject({ ok: false, cause: 'apparmor' })
    if (!r.ok) {
      expect(r.reason).toContain('RTM_NEWADDR')
      expect(r.fix).toContain('userns')
      expect(r.fix).toContain('apparmor_restrict_unprivileged_userns=0')
    }
  })

  it('the RTM_NEWADDR failure is recognised even where the sysctl is unreadable', () => {
    expect(probeNamespacesUncached(fake(BWRAP_FAILURES.apparmor), hostProbe)).toMatchObject({ ok: false, cause: 'apparmor' })
  })

  it('max_user_namespaces exhausted or 0 → max-user-namespaces, with the sysctl', () => {
    const r = probeNamespacesUncached(fake(BWRAP_FAILURES.maxUserns), { ...hostProbe, maxUserNamespaces: 0 })
    expect(r).toMatchObject({ ok: false, cause: 'max-user-namespaces' })
    if (!r.ok) expect(r.fix).toContain('user.max_user_namespaces')
  })

  it('/proc not mountable → proc, with the container flag that unmasks it', () => {
    const r = probeNamespacesUncached(fake(BWRAP_FAILURES.proc), hostProbe)
    expect(r).toMatchObject({ ok: false, cause: 'proc' })
    if (!r.ok) expect(r.fix).toContain('systempaths=unconfined')
  })

  it('namespaces forbidden with permissive sysctls → container', () => {
    expect(probeNamespacesUncached(fake(BWRAP_FAILURES.container), hostProbe)).toMatchObject({ ok: false, cause: 'container' })
  })

  it('namespaces forbidden and unprivileged_userns_clone=0 → that sysctl', () => {
    const r = probeNamespacesUncached(fake('bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces.'), { ...hostProbe, unprivilegedUsernsClone: 0 })
    expect(r).toMatchObject({ ok: false, cause: 'userns-clone-disabled' })
  })

  it('a bwrap without the options cordon needs → too old', () => {
    const r = probeNamespacesUncached(fake('unused', { help: ['--unshare-user', '--bind'] }), hostProbe)
    expect(r).toMatchObject({ ok: false, cause: 'bwrap-too-old' })
    if (!r.ok) expect(r.reason).toContain('--as-pid-1')
  })
})

describe('featureWarnings', () => {
  it('a bwrap without --bind-fd is reported: its binds go by path, which a concurrent sandbox can race', () => {
    expect(featureWarnings({ disableUserns: true, cgroupTry: true, bindFd: true })).toEqual([])
    const w = featureWarnings({ disableUserns: true, cgroupTry: true, bindFd: false })
    expect(w).toHaveLength(1)
    expect(w[0]!.detail).toContain('--bind-fd')
  })
})
