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
import { chmodSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { Escape } from '../../../helpers/escape.js'
import { identities, type Identity } from '../../../helpers/identity.js'
import { makeTestTmpDir } from '../../../helpers/paths.js'
import { runDriver, runDriverBatch } from '../../../helpers/run-driver.js'
import { namespaceSkip } from './ns-available.js'

const withoutUserns = (identity: Identity): Identity => {
  const wrapper = join(inject('cordonProbeDir'), 'probe-without-userns')
  return { ...identity, wrap: (argv) => identity.wrap([wrapper, ...argv]) }
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
  const skip = namespaceSkip(identity)
  describe.skipIf(skip !== undefined)(`${skip ? `skipped: ${skip}` : 'bwrap'}`, () => {
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

    it('the host changes between probe and launch: a SetupError with the cause and the fix, then the next plan falls back', async () => {
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
        expect(second!.error).toMatchObject({ name: 'SetupError', code: 'E_SETUP', step: 'namespaces', syscall: 'bwrap', errnoCode: 'EPERM' })
        expect(second!.error!.message).toContain('(container)')
        expect(second!.error!.message).toContain('fix: ')
        expect(second!.error!.message).not.toContain('EUNKNOWN')
        expect(third!.error, JSON.stringify(third!.error)).toBeUndefined()
        expect(third!.result!.enforcement!.mode).toBe('landlock')
        expect(third!.result!.enforcement!.modeReason).toMatch(/^auto: namespace mode is unavailable \(container: /)
      } finally {
        bwrap.cleanup()
      }
    })
  })
})
