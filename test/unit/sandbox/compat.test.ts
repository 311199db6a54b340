/** The compat decision: run, or refuse, given what a launch would enforce. */
import { describe, expect, it } from 'vitest'
import { UnsupportedError } from '../../../src/errors.js'
import { checkCompat } from '../../../src/sandbox/compat.js'
import type { Enforcement, MissingProtection } from '../../../src/platform/enforcement.js'
import { thrown } from '../../helpers/errors.js'

function enforcement(status: Enforcement['status'], missing: MissingProtection[], mechanisms = ['landlock', 'seccomp'], confined = true): Enforcement {
  return {
    mode: 'landlock', modeReason: '', status, mechanisms, network: 'off',
    filesystem: { confined, readAll: true, readRoots: ['/'], writeRoots: [], denyRead: [], protected: [], narrowed: [], privateDirs: [] },
    envDropped: [], missing, notes: [], widening: { writeExcluded: [] },
    platform: { os: 'linux', landlockAbi: 7, seccomp: true, noNewPrivs: true, capabilitiesDropped: true },
  }
}
const implicit: MissingProtection = { protection: 'protected-paths', explicit: false, reason: 'needs namespace mode' }
const explicit: MissingProtection = { protection: 'network', explicit: true, reason: 'cannot block sockets', fix: 'a newer kernel' }

const refusal = (fn: () => void) => thrown(UnsupportedError, fn)

describe('checkCompat', () => {
  it('full enforcement runs under every compat', () => {
    for (const compat of ['hard', 'best-effort', undefined] as const) expect(() => checkCompat(enforcement('full', []), { compat: compat, unsandboxed: false, allowUnconfinedFilesystem: false })).not.toThrow()
  })

  it('hard refuses any partial enforcement, naming the first missing protection and the rest', () => {
    const e = refusal(() => checkCompat(enforcement('partial', [implicit, explicit]), { compat: 'hard', unsandboxed: false, allowUnconfinedFilesystem: false }))
    expect(e.code).toBe('E_UNSUPPORTED')
    expect(e.feature).toBe('protected-paths (and network)')
    expect(e.found).toBe('needs namespace mode')
  })

  it('the default refuses only what the caller asked for explicitly', () => {
    expect(() => checkCompat(enforcement('partial', [implicit]), { compat: undefined, unsandboxed: false, allowUnconfinedFilesystem: false })).not.toThrow()
    const e = refusal(() => checkCompat(enforcement('partial', [implicit, explicit]), { compat: undefined, unsandboxed: false, allowUnconfinedFilesystem: false }))
    expect(e.feature).toBe('network')
    expect(e.fix).toBe('a newer kernel')
  })

  it('best-effort never refuses a partial sandbox', () => {
    expect(() => checkCompat(enforcement('partial', [implicit, explicit]), { compat: 'best-effort', unsandboxed: false, allowUnconfinedFilesystem: false })).not.toThrow()
  })

  it('no mechanism at all is refused under every compat, best-effort and allowUnconfinedFilesystem included', () => {
    for (const compat of ['hard', 'best-effort', undefined] as const) {
      for (const allowUnconfinedFilesystem of [false, true]) {
        const e = refusal(() => checkCompat(enforcement('none', [explicit], [], false), { compat, unsandboxed: false, allowUnconfinedFilesystem }))
        expect(e.feature).toBe('sandbox')
        expect(e.message).toMatch(/cannot block sockets/)
      }
    }
  })

  const fsMissing: MissingProtection = { protection: 'filesystem', explicit: true, reason: 'nothing confines the filesystem', fix: 'namespace mode; or pass allowUnconfinedFilesystem: true' }
  const seccompOnly = () => enforcement('none', [fsMissing], ['seccomp'], false)

  it('an unconfined filesystem is refused under every compat, best-effort included, naming the opt-in', () => {
    for (const compat of ['hard', 'best-effort', undefined] as const) {
      const e = refusal(() => checkCompat(seccompOnly(), { compat, unsandboxed: false, allowUnconfinedFilesystem: false }))
      expect(e.feature).toBe('filesystem confinement')
      expect(e.fix).toMatch(/allowUnconfinedFilesystem: true/)
    }
  })

  it('allowUnconfinedFilesystem lets it run under best-effort and the default; hard still refuses the other gaps', () => {
    for (const compat of ['best-effort', undefined] as const) expect(() => checkCompat(seccompOnly(), { compat, unsandboxed: false, allowUnconfinedFilesystem: true })).not.toThrow()
    const withMore = enforcement('none', [fsMissing, implicit], ['seccomp'], false)
    const e = refusal(() => checkCompat(withMore, { compat: 'hard', unsandboxed: false, allowUnconfinedFilesystem: true }))
    expect(e.feature).toBe('protected-paths')
  })

  it('status none runs only when the profile asked for no sandbox', () => {
    expect(() => checkCompat(enforcement('none', []), { compat: 'best-effort', unsandboxed: true, allowUnconfinedFilesystem: false })).not.toThrow()
  })
})
