/**
 * Namespaces that stop working after they were probed (threat-model.md
 * § Weaker hosts and reporting). A successful bwrap probe is kept per
 * process and across processes; the same caller may later run where user
 * namespaces are refused. cordon must notice, say why, and — under `auto` —
 * end up in Landlock mode rather than in an opaque failure.
 *
 *   the caller now runs under a seccomp filter refusing user namespaces
 *     (probes/without-userns.c, a real filter)  → the stored probe does not
 *     apply (its key holds the caller's seccomp state): auto falls back
 *   the host changes between probe and launch (a bwrap that works for the
 *     first run, then fails the way a refused namespace makes it fail)
 *     → a SetupError naming the cause and the fix (never EUNKNOWN), the
 *     probe forgotten, and the next plan falls back
 */
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createOrchestrator, createSandbox, SetupError } from '../../../../src/index.js'
import { rejected } from '../../../helpers/errors.js'
import { Escape } from '../../../helpers/escape.js'
import { identities, type Identity } from '../../../helpers/identity.js'
import { makeTestTmpDir } from '../../../helpers/paths.js'
import { runDriver, runDriverBatch } from '../../../helpers/run-driver.js'
import { namespacesMissing } from '../../../helpers/modes.js'
import { self } from '../../../helpers/identity.js'
import { describeWhere, itWhere } from '../../../helpers/requirements.js'

const withoutUserns = (identity: Identity): Identity => {
  const wrapper = join(inject('cordonProbeDir'), 'probe-without-userns')
  return { ...identity, wrap: (argv) => identity.wrap([wrapper, ...argv]) }
}

/** A bwrap that removes `victim` right before a launch (not a probe), then is the real one: a host changing under a plan. */
function churningBwrap(victim: string): { path: string; cleanup(): void } {
  const dir = makeTestTmpDir('churn-bwrap-')
  const path = join(dir, 'bwrap')
  const script = [
    '#!/bin/sh',
    'case "$1" in --version|--help) exec /usr/bin/bwrap "$@" ;; esac',
    `case "$*" in *cordon-launcher*) /bin/rm -rf '${victim}' ;; esac`,
    'exec /usr/bin/bwrap "$@"',
    '',
  ]
  writeFileSync(path, script.join('\n'))
  chmodSync(path, 0o755)
  return { path, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

/** A bwrap that is the real one until `marker` exists, then fails like a refused user namespace. */
function flakyBwrap(marker: string): { path: string; cleanup(): void } {
  const dir = makeTestTmpDir('flaky-bwrap-')
  const path = join(dir, 'bwrap')
  const refused = 'bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces.'
  const script = [
    '#!/bin/sh',
    'case "$1" in --version|--help) exec /usr/bin/bwrap "$@" ;; esac',
    `if [ -e '${marker}' ]; then echo '${refused}' >&2; exit 1; fi`,
    'exec /usr/bin/bwrap "$@"',
    '',
  ]
  writeFileSync(path, script.join('\n'))
  chmodSync(path, 0o755)
  return { path, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

describe.each(identities())('namespaces that stop working after the probe — caller: $name', (identity) => {
  describeWhere(namespacesMissing(identity), 'bwrap', () => {
    let e: Escape
    beforeAll(() => {
      e = new Escape(identity, 'namespaces', 'changed')
    })
    afterAll(() => e?.cleanup())
    const env = () => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: e.tree.home })

    it('a caller now under a seccomp filter refusing user namespaces: the stored probe does not apply, auto falls back to Landlock', async () => {
      const request = { options: { cwd: e.tree.work, mode: 'auto' }, command: ['/bin/true'] }
      // The same caller first runs where namespaces work: namespace mode, and the probe is stored.
      const before = await runDriver(identity, request, { env: env() })
      expect(before.result?.enforcement?.mode).toBe('namespaces')
      const after = await runDriver(withoutUserns(identity), request, { env: env() })
      expect(after.error, JSON.stringify(after.error)).toBeUndefined()
      expect(after.result!.exitCode).toBe(0)
      expect(after.result!.enforcement!.mode).toBe('landlock')
      expect(after.result!.enforcement!.missing[0]).toMatchObject({ protection: 'namespaces', explicit: false })
      expect(after.result!.enforcement!.modeReason).toMatch(/^auto: namespace mode is unavailable \(container: /)
    })

    it('with mode namespaces, run() plans again and the explicit request is refused with the cause and the fix', async () => {
      const marker = join(e.tree.work, `namespaces-gone-ns-${process.pid}`)
      const bwrap = flakyBwrap(marker)
      try {
        const options = { cwd: e.tree.work, mode: 'namespaces', bwrap: bwrap.path }
        const [first, second] = await runDriverBatch(
          identity,
          [
            { options, command: ['/bin/sh', '-c', 'touch "$1"', 'sh', marker] },
            { options, command: ['/bin/true'] },
          ],
          { env: env() },
        )
        expect(first!.result?.enforcement?.mode).toBe('namespaces')
        // The retry plans afresh: the probe fails now, and an explicit namespaces request is refused.
        expect(second!.error).toMatchObject({ name: 'UnsupportedError', code: 'E_UNSUPPORTED' })
        expect(second!.error!.message).toContain('container')
      } finally {
        bwrap.cleanup()
      }
    })

    it('the host changes between probe and launch: run() plans again (probing afresh) and auto falls back to Landlock for that very run', async () => {
      const marker = join(e.tree.work, `namespaces-gone-${process.pid}`)
      const bwrap = flakyBwrap(marker)
      try {
        const options = { cwd: e.tree.work, mode: 'auto', bwrap: bwrap.path }
        const [first, second, third] = await runDriverBatch(
          identity,
          [
            { options, command: ['/bin/sh', '-c', 'touch "$1"', 'sh', marker] }, // works, then "the host changes"
            { options, command: ['/bin/true'] }, // planned from the probe of this process
            { options, command: ['/bin/true'] },
          ],
          { env: env() },
        )
        expect(first!.result?.enforcement?.mode).toBe('namespaces')
        for (const later of [second!, third!]) {
          expect(later.error, JSON.stringify(later.error)).toBeUndefined()
          expect(later.result!.exitCode).toBe(0)
          expect(later.result!.enforcement!.mode).toBe('landlock')
          expect(later.result!.enforcement!.modeReason).toMatch(/^auto: namespace mode is unavailable \(container: /)
        }
      } finally {
        bwrap.cleanup()
      }
    })

    it('a denied directory removed between planning and launch (host churn): run() plans again and runs, the path still denied', async () => {
      const victim = e.tree.dir(`home/.churn-${process.pid}`)
      const bwrap = churningBwrap(victim)
      try {
        const reply = await runDriver(identity, { options: { cwd: e.tree.work, mode: 'namespaces', bwrap: bwrap.path, denyRead: [victim] }, command: ['/bin/true'] }, { env: env() })
        expect(reply.error, JSON.stringify(reply.error)).toBeUndefined()
        expect(reply.result!.exitCode).toBe(0)
        expect(reply.result!.enforcement!.mode).toBe('namespaces')
        expect(reply.result!.enforcement!.filesystem.denyRead).toContain(victim)
      } finally {
        bwrap.cleanup()
      }
    })
  })
})

describe('spawn() and a host that changed under the plan', () => {
  const ns = namespacesMissing(self())
  itWhere(ns, 'gets the SetupError itself (step mounts, EROFS, hostChanged), since its streams belong to the first launch', async () => {
    const dir = makeTestTmpDir('churn-spawn-')
    const victim = join(dir, 'denied')
    const work = join(dir, 'work')
    mkdirSync(victim)
    mkdirSync(work)
    const bwrap = churningBwrap(victim)
    const sb = createSandbox({ cwd: work, mode: 'namespaces', bwrap: bwrap.path, denyRead: [victim] })
    try {
      const err = await rejected(SetupError, () => sb.spawn('/bin/true'))
      expect(err).toMatchObject({ step: 'mounts', syscall: 'mount', errnoCode: 'EROFS', hostChanged: true })
      expect(err.message).toContain(`${victim} changed on the host between planning and launch`)
    } finally {
      sb.close()
      bwrap.cleanup()
      rmSync(dir, { recursive: true, force: true })
    }
  })

  itWhere(ns, 'the orchestrator (which streams through spawn()) plans its attempt again too, and says so in notes', async () => {
    const dir = makeTestTmpDir('churn-orch-')
    const victim = join(dir, 'denied')
    const work = join(dir, 'work')
    mkdirSync(victim)
    mkdirSync(work)
    const bwrap = churningBwrap(victim)
    try {
      const orch = createOrchestrator({ sandbox: { cwd: work, mode: 'namespaces', bwrap: bwrap.path, denyRead: [victim] }, onApproval: () => 'approved' })
      const o = await orch.exec({ command: ['/bin/true'], timeout: 20_000 })
      expect(o.status).toBe('completed')
      expect(o.result?.exitCode).toBe(0)
      expect(o.notes.join('\n')).toMatch(/changed on the host between planning and launch.*planned again/)
    } finally {
      bwrap.cleanup()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
