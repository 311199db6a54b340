import { describe, expect, it } from 'vitest'
import type { ResolvedPolicy } from '../../../../src/profile/resolve.js'
import { planWin32, VERIFIED } from '../../../../src/platform/win32/plan.js'
import { statusOf } from '../../../../src/platform/enforcement.js'

const SID = 'S-1-15-3-1024-1-2-3-4-5-6-7-8'
const JOURNAL = 'C:\\Users\\u\\AppData\\Local\\cordon\\acl-journal'

function policy(over: Partial<ResolvedPolicy> = {}): ResolvedPolicy {
  return {
    profileName: 'workspace', cwd: 'C:\\work\\repo', tmpdir: 'C:\\Users\\u\\AppData\\Local\\Temp', readAll: true, readRoots: ['\\'],
    writeRoots: ['C:\\work\\repo', 'C:\\Users\\u\\AppData\\Local\\Temp'], denyRead: [], denyGlobs: [], denyGlobsTruncated: false,
    protectedPaths: ['C:\\work\\repo\\.git\\hooks', 'C:\\work\\repo\\.git\\config'], network: 'off', env: {}, envDropped: [], limits: {}, unsandboxed: false,
    ...over,
  }
}

const plan = (p: ResolvedPolicy, exists: (path: string) => boolean = () => true, explicit: string[] = []) =>
  planWin32({ policy: p, explicit: new Set(explicit), sid: SID, journal: JOURNAL, exists })

describe('planning a Windows launch', () => {
  it('grants the sandbox SID every write root, denies it the protected paths, guards their ancestors below the root', () => {
    const { plan: p } = plan(policy())
    expect(p.allow).toEqual(['C:\\work\\repo', 'C:\\Users\\u\\AppData\\Local\\Temp'])
    expect(p.deny).toEqual(['C:\\work\\repo\\.git\\hooks', 'C:\\work\\repo\\.git\\config'])
    // .git itself must not be renamed away; the root is not guarded (its parent is not the SID's to change anyway).
    expect(p.guard).toEqual(['C:\\work\\repo\\.git'])
    expect(p.sid).toBe(SID)
    expect(p.journal).toBe(JOURNAL)
  })

  it('compares paths case-insensitively, as Win32 does', () => {
    const { plan: p } = plan(policy({ protectedPaths: ['c:\\WORK\\Repo\\.git'] }))
    expect(p.deny).toEqual(['c:\\WORK\\Repo\\.git'])
  })

  it('leaves protected paths outside every write root alone (the SID was never granted write there)', () => {
    const { plan: p, enforcement } = plan(policy({ protectedPaths: ['D:\\elsewhere\\.git'] }))
    expect(p.deny).toEqual([])
    expect(enforcement.filesystem.protected).toEqual(['D:\\elsewhere\\.git'])
  })

  it('reports a protected path that does not exist as missing (an ACE needs an object), explicit when the caller named it', () => {
    const exists = (path: string) => !path.endsWith('hooks')
    const { plan: p, enforcement } = plan(policy(), exists, ['protected-paths'])
    expect(p.deny).toEqual(['C:\\work\\repo\\.git\\config'])
    const m = enforcement.missing.find((x) => x.protection === 'protected-paths')
    expect(m).toMatchObject({ explicit: true })
    expect(m?.reason).toContain('C:\\work\\repo\\.git\\hooks')
    expect(enforcement.filesystem.protected).not.toContain('C:\\work\\repo\\.git\\hooks')
  })

  it('runs at low integrity and labels the existing deny-read paths no-read-up', () => {
    const { plan: p, enforcement } = plan(policy({ denyRead: ['C:\\Users\\u\\.ssh', 'C:\\Users\\u\\.aws'] }), (path) => !path.endsWith('.aws'))
    expect(p.integrity).toBe('low')
    expect(p.noReadUp).toEqual(['C:\\Users\\u\\.ssh'])
    expect(enforcement.filesystem.denyRead).toEqual(['C:\\Users\\u\\.ssh'])
    expect(enforcement.mechanisms).toContain('integrity')
    expect(enforcement.missing.map((m) => m.protection)).not.toContain('deny-read')
  })

  it('a volume root as a write root: medium integrity, deny-read and integrity reported missing', () => {
    const { plan: p, enforcement } = plan(policy({ writeRoots: ['C:\\'], denyRead: ['C:\\Users\\u\\.ssh'] }))
    expect(p.integrity).toBe('medium')
    expect(p.noReadUp).toEqual([])
    const ids = enforcement.missing.map((m) => m.protection)
    expect(ids).toEqual(expect.arrayContaining(['deny-read', 'integrity']))
    expect(enforcement.missing.find((m) => m.protection === 'deny-read')?.explicit).toBe(true)
    expect(enforcement.mechanisms).not.toContain('integrity')
  })

  it('reports network off as missing and explicit (a token cannot block sockets), and the network as on', () => {
    const { enforcement } = plan(policy())
    expect(enforcement.network).toBe('on')
    expect(enforcement.missing.find((m) => m.protection === 'network')).toMatchObject({ explicit: true })
    expect(enforcement.status).toBe('partial')
    expect(statusOf(enforcement)).toBe('partial')
  })

  it('network on: nothing about the network is missing', () => {
    const { enforcement } = plan(policy({ network: 'on' }))
    expect(enforcement.missing).toEqual([])
    expect(enforcement.status).toBe('full')
  })

  it('read roots narrower than everything cannot be enforced by a write-restricted token: missing, explicit', () => {
    const { enforcement } = plan(policy({ network: 'on', readAll: false, readRoots: ['C:\\work'] }))
    expect(enforcement.missing).toEqual([expect.objectContaining({ protection: 'read-roots', explicit: true })])
    expect(enforcement.filesystem.readAll).toBe(true)
  })

  it('maps nproc, as and cpu to the job; nofile and fsize are named as not applied', () => {
    const { plan: p, enforcement } = plan(policy({ limits: { nproc: 64, as: 2 ** 31, cpu: 60, nofile: 100 } }))
    expect(p.limits).toEqual({ procs: 64, memory: 2 ** 31, cpu: 60 })
    expect(enforcement.platform).toMatchObject({ os: 'win32', job: { killOnClose: true, activeProcesses: 64, memoryBytes: 2 ** 31, cpuSeconds: 60 } })
    expect(enforcement.notes.join('\n')).toContain('nofile and fsize')
  })

  it('says how it was verified, in the notes and the platform report', () => {
    const { enforcement } = plan(policy())
    expect(VERIFIED).toBe('runs under Wine; token, ACL, job limits not yet run on real Windows')
    expect(enforcement.platform).toMatchObject({ os: 'win32', token: 'write-restricted', capabilitySid: SID, verified: VERIFIED })
    expect(enforcement.notes).toContain(`verified: ${VERIFIED}`)
    expect(enforcement.mode).toBe('restricted-token')
  })
})
