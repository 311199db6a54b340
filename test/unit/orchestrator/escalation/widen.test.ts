/**
 * Widening: only what was denied, never a denied read, and "no sandbox"
 * keeps every read mask.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { Denial } from '../../../../src/orchestrator/index.js'
import { applyWidening, hasDeniedRead, noSandboxWidening, planWidening } from '../../../../src/orchestrator/escalation/widen.js'
import { enforcementFor } from '../fake-sandbox.js'
import { removeTempDirs, tempDir } from '../../../helpers/temp.js'

afterAll(removeTempDirs)

const ws = tempDir('widen-ws-')
const out = tempDir('widen-out-')
mkdirSync(join(out, 'sub'))
writeFileSync(join(out, 'sub', 'file'), 'x')
const ev = { source: 'stderr' as const, text: 'x', by: 'output' as const }
const enforcement = enforcementFor({ denyRead: ['/srv/secret'] }, ws)
const write = (path: string): Denial => ({ operation: 'write', rule: 'outside-write-roots', path, evidence: ev })

describe('planWidening', () => {
  it('adds the directory holding a denied path (existing file, missing file, missing directories)', () => {
    expect(planWidening([write(join(out, 'sub', 'file'))], enforcement).widening?.write).toEqual([join(out, 'sub')])
    expect(planWidening([write(join(out, 'new.txt'))], enforcement).widening?.write).toEqual([out])
    expect(planWidening([write(join(out, 'a', 'b', 'c'))], enforcement).widening?.write).toEqual([out])
  })

  it('enables the network for a network denial and nothing else', () => {
    const plan = planWidening([{ operation: 'network', rule: 'network-off', evidence: ev }], enforcement)
    expect(plan.widening).toEqual({ write: [], read: [], network: true, localSockets: false, full: false, unsandboxed: false })
  })

  it.each([
    ['deny-read', 'read', /a denied read is never dropped/],
    ['protected', 'write', /protected paths stay read-only/],
    ['seccomp', 'syscall', /syscall filter is not widened/],
  ] as const)('refuses %s', (rule, operation, why) => {
    const plan = planWidening([{ operation, rule, path: '/srv/secret/k', evidence: ev }], enforcement)
    expect(plan.widening).toBeUndefined()
    expect(plan.refused[0]?.reason).toMatch(why)
  })

  it('widens what it can and reports the rest', () => {
    const plan = planWidening([write(join(out, 'n')), { operation: 'read', rule: 'deny-read', path: '/srv/secret/k', evidence: ev }], enforcement)
    expect(plan.widening?.write).toEqual([out])
    expect(plan.refused).toHaveLength(1)
  })

  it('never adds a write root that lies inside a denied read', () => {
    const e = enforcementFor({ denyRead: [out] }, ws)
    expect(planWidening([write(join(out, 'n'))], e).widening).toBeUndefined()
  })
})

describe('no-sandbox requests', () => {
  it('the built-in profiles deny reads (secrets), so "no sandbox" is a widened sandbox', () => {
    expect(hasDeniedRead({ profile: 'full-access' })).toBe(true)
    expect(noSandboxWidening({ profile: 'workspace-write' }, true)).toMatchObject({ full: true, unsandboxed: false })
  })

  it('the widened options keep the profile, its denyRead and add write / and network', () => {
    const base = { profile: 'read-only', cwd: ws, denyRead: ['/srv/secret'] }
    const opts = applyWidening(base, noSandboxWidening(base, true), { writeExcluded: [] })
    expect(opts).toEqual({ profile: 'read-only', cwd: ws, denyRead: ['/srv/secret'], write: ['/'], read: ['/'], network: 'on' })
  })

  it('a widening over what the mode must keep out of reach runs in the mode the report names', () => {
    const base = { profile: 'read-only', cwd: ws }
    const limits = { writeExcluded: ['/usr/bin/bwrap'], modeForExcluded: 'landlock' as const }
    expect(applyWidening(base, noSandboxWidening(base, true), limits).mode).toBe('landlock')
    const narrow = { write: [join(ws, 'out')], read: [], network: false, localSockets: false, full: false, unsandboxed: false }
    expect(applyWidening(base, narrow, limits).mode).toBeUndefined()
    expect(applyWidening(base, { ...narrow, write: ['/usr'] }, limits).mode).toBe('landlock')
  })

  it('unconfined only when allowed and nothing is denied for reading', () => {
    const profile = { filesystem: { denySecrets: false } }
    expect(noSandboxWidening({ profile }, false).unsandboxed).toBe(false)
    expect(noSandboxWidening({ profile }, true).unsandboxed).toBe(true)
    expect(noSandboxWidening({ profile, denyRead: ['/x'] }, true).unsandboxed).toBe(false)
    expect(noSandboxWidening({ profile: { filesystem: { denySecrets: false, denyRead: ['/x'] } } }, true).unsandboxed).toBe(false)
  })
})
