/**
 * Runs with no filesystem confinement (threat-model.md § Weaker hosts and
 * reporting): on a kernel without Landlock, Landlock mode would confine
 * nothing but syscalls. cordon refuses that even under best-effort unless
 * the caller opts in by name, and a run it does make says `status: 'none'`.
 *
 * The host without Landlock is real, not mocked: the driver (the caller of
 * cordon) runs under a seccomp filter that answers ENOSYS to the Landlock
 * syscalls, which the launcher inherits (probes/without-landlock.c). The same
 * read is also made on this host as it is, to show the probe and the denial.
 */
import { spawnSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { join } from 'node:path'
import { Escape, outcomeOf } from '../../helpers/escape.js'
import { identities, type Identity } from '../../helpers/identity.js'
import { describeWhere, firstMissing, host } from '../../helpers/requirements.js'
import { SECRET_TEXT } from '../../helpers/tree.js'
import { repoRoot } from '../../helpers/paths.js'

const withoutLandlock = (identity: Identity): Identity => {
  const wrapper = join(inject('cordonProbeDir'), 'probe-without-landlock')
  return { ...identity, wrap: (argv) => identity.wrap([wrapper, ...argv]) }
}

describe.each(identities())('no filesystem confinement — caller: $name', (identity) => {
  describeWhere(firstMissing(identity.missing, host().compiler), 'Landlock mode', () => {
    let host: Escape
    let noLandlock: Escape
    beforeAll(() => {
      host = new Escape(identity, 'landlock', 'fs-host')
      noLandlock = new Escape(withoutLandlock(identity), 'landlock', 'fs-nolandlock')
    })
    afterAll(() => {
      host?.cleanup()
      noLandlock?.cleanup()
    })

    it('with Landlock the denied read is refused (EACCES), and the same read works unconfined', async () => {
      const [confined, plain] = await host.both(['cat', host.tree.secretFile])
      expect(outcomeOf(confined)).toBe('EXIT:1')
      expect(confined.result!.stderr).toMatch(/Permission denied/)
      expect(plain.result!.stdout).toContain(SECRET_TEXT)
      expect(confined.result!.enforcement).toMatchObject({ status: 'partial', filesystem: { confined: true } })
    })

    it('without Landlock, best-effort is refused before anything runs, naming the opt-in', async () => {
      const reply = await noLandlock.confined(['cat', noLandlock.tree.secretFile])
      expect(reply.error).toMatchObject({ name: 'UnsupportedError', code: 'E_UNSUPPORTED', feature: 'filesystem confinement' })
      expect(reply.error!.message).toMatch(/allowUnconfinedFilesystem: true/)
    })

    it('the default compat refuses it too', async () => {
      const reply = await noLandlock.confined(['cat', noLandlock.tree.secretFile], { options: { compat: undefined } })
      expect(reply.error).toMatchObject({ code: 'E_UNSUPPORTED', feature: 'filesystem confinement' })
    })

    it('with allowUnconfinedFilesystem it runs, and the report says status none: the secret really is readable', async () => {
      const reply = await noLandlock.confined(['cat', noLandlock.tree.secretFile], { options: { allowUnconfinedFilesystem: true } })
      expect(reply.result?.stdout).toContain(SECRET_TEXT)
      const e = reply.result!.enforcement!
      expect(e).toMatchObject({ mode: 'landlock', status: 'none', filesystem: { confined: false }, platform: { landlockAbi: null, seccomp: true } })
      expect(e.mechanisms.filter((m) => m !== 'cgroup')).toEqual(['seccomp']) // a run's cgroup limits resources, it confines no access
      expect(e.missing.map((m) => m.protection)).toEqual(expect.arrayContaining(['landlock', 'filesystem']))
    })
  })
})

describeWhere(host().compiler, 'the CLI on a host without Landlock', () => {
  const cli = (args: string[]) => {
    const wrapper = join(inject('cordonProbeDir'), 'probe-without-landlock')
    return spawnSync(wrapper, [process.execPath, join(repoRoot, 'bin', 'cordon.js'), 'run', '--mode', 'landlock', ...args, '--', 'true'], { encoding: 'utf8' })
  }

  it('refuses with exit 125 naming --allow-unconfined-fs, even with --compat best-effort', () => {
    const r = cli(['--compat', 'best-effort'])
    expect(r.status).toBe(125)
    expect(r.stderr).toContain('--allow-unconfined-fs')
  })

  it('runs with --allow-unconfined-fs, and --json reports status none', () => {
    const r = cli(['--allow-unconfined-fs', '--json'])
    expect(r.status).toBe(0)
    expect(JSON.parse(r.stdout).enforcement).toMatchObject({ status: 'none', filesystem: { confined: false } })
  })
})
