/** The compat decision: run, or refuse, given what a launch would enforce. */
import { describe, expect, it } from 'vitest'
import { UnsupportedError } from '../../../src/errors.js'
import { checkCompat } from '../../../src/sandbox/compat.js'
import type { Enforcement, MissingProtection } from '../../../src/platform/enforcement.js'
import { thrown } from '../../helpers/errors.js'

function enforcement(status: Enforcement['status'], missing: MissingProtection[]): Enforcement {
  return {
    mode: 'landlock', modeReason: '', status, network: 'off',
    filesystem: { readAll: true, readRoots: ['/'], writeRoots: [], denyRead: [], protected: [], narrowed: [], privateDirs: [] },
    envDropped: [], missing, notes: [], widening: { writeExcluded: [] },
    platform: { os: 'linux', landlockAbi: 7, seccomp: true, noNewPrivs: true, capabilitiesDropped: true },
  }
}
const implicit: MissingProtection = { protection: 'protected-paths', explicit: false, reason: 'needs namespace mode' }
const explicit: MissingProtection = { protection: 'network', explicit: true, reason: 'cannot block sockets', fix: 'a newer kernel' }

const refusal = (fn: () => void) => thrown(UnsupportedError, fn)

describe('checkCompat', () => {
  it('full enforcement runs under every compat', () => {
    for (const compat of ['hard', 'best-effort', undefined] as const) expect(() => checkCompat(enforcement('full', []), compat, false)).not.toThrow()
  })

  it('hard refuses any partial enforcement, naming the first missing protection and the rest', () => {
    const e = refusal(() => checkCompat(enforcement('partial', [implicit, explicit]), 'hard', false))
    expect(e.code).toBe('E_UNSUPPORTED')
    expect(e.feature).toBe('protected-paths (and network)')
    expect(e.found).toBe('needs namespace mode')
  })

  it('the default refuses only what the caller asked for explicitly', () => {
    expect(() => checkCompat(enforcement('partial', [implicit]), undefined, false)).not.toThrow()
    const e = refusal(() => checkCompat(enforcement('partial', [implicit, explicit]), undefined, false))
    expect(e.feature).toBe('network')
    expect(e.fix).toBe('a newer kernel')
  })

  it('best-effort never refuses a partial sandbox', () => {
    expect(() => checkCompat(enforcement('partial', [implicit, explicit]), 'best-effort', false)).not.toThrow()
  })

  it('status none is refused under every compat, best-effort included', () => {
    for (const compat of ['hard', 'best-effort', undefined] as const) {
      const e = refusal(() => checkCompat(enforcement('none', [explicit]), compat, false))
      expect(e.feature).toBe('sandbox')
      expect(e.message).toMatch(/cannot block sockets/)
    }
  })

  it('status none runs only when the profile asked for no sandbox', () => {
    expect(() => checkCompat(enforcement('none', []), 'best-effort', true)).not.toThrow()
  })
})
