import { describe, expect, it } from 'vitest'
import { PolicyError } from '../../../../src/errors.js'
import { encodePlan, envBlock } from '../../../../src/platform/win32/wire.js'
import { envObject, withTemp } from '../../../../src/platform/win32/start.js'
import { isSandboxSid, newSandboxSid } from '../../../../src/platform/win32/sid.js'
import { parseRecords, setupErrorOf } from '../../../../src/platform/win32/status.js'
import type { Win32LaunchPlan } from '../../../../src/platform/win32/plan.js'

const plan: Win32LaunchPlan = {
  sid: 'S-1-15-3-1024-1-2-3-4-5-6-7-8', integrity: 'low', allow: ['C:\\w'], deny: ['C:\\w\\.git'], guard: [], noReadUp: ['C:\\s'],
  journal: 'C:\\j', limits: { procs: 4, memory: 1024 },
}

describe('the Windows launcher wire', () => {
  it('encodes the plan as NUL-separated KEY VALUE pairs from `v 1` to `end`', () => {
    const fields = encodePlan(plan, { app: 'C:\\n.exe', cmdline: 'n.exe "a b"', cwd: 'C:\\w', env: ['A=1'] }).toString('utf8').split('\0')
    expect(fields.slice(0, 2)).toEqual(['v', '1'])
    expect(fields.slice(-2)).toEqual(['end', ''])
    const pairs = fields.slice(0, -2)
    const get = (k: string) => pairs.flatMap((v, i) => (i % 2 === 0 && v === k ? [pairs[i + 1]] : []))
    expect(get('app')).toEqual(['C:\\n.exe'])
    expect(get('cmdline')).toEqual(['n.exe "a b"'])
    expect(get('env')).toEqual(['A=1'])
    expect(get('deny')).toEqual(['C:\\w\\.git'])
    expect(get('noreadup')).toEqual(['C:\\s'])
    expect(get('integrity')).toEqual(['low'])
    expect(get('procs')).toEqual(['4'])
    expect(get('memory')).toEqual(['1024'])
    expect(get('cpu')).toEqual([])
  })

  it('refuses a NUL in any value rather than let it cut a field short', () => {
    expect(() => encodePlan(plan, { app: 'C:\\n.exe', cmdline: 'x', cwd: 'C:\\w', env: ['A=1\0deny'] })).toThrow(PolicyError)
  })

  it('sorts the environment block by upper-cased name and keeps names that start with =', () => {
    expect(envBlock({ b: '2', A: '1', '=C:': 'C:\\x' })).toEqual(['=C:=C:\\x', 'A=1', 'b=2'])
    expect(envObject(['=C:=C:\\x', 'PATH=a=b', 'bad'])).toEqual({ '=C:': 'C:\\x', PATH: 'a=b' })
  })

  it('points TEMP and TMP (any case) at the sandbox temp dir when it has one', () => {
    expect(withTemp({ Temp: 'C:\\u\\T', tmp: 'x', A: '1' }, 'C:\\w\\tmp')).toEqual({ A: '1', TEMP: 'C:\\w\\tmp', TMP: 'C:\\w\\tmp' })
    expect(withTemp({ TEMP: 'C:\\u\\T' }, undefined)).toEqual({ TEMP: 'C:\\u\\T' })
  })

  it('makes a fresh capability-shaped SID per call, from 256 random bits', () => {
    const a = newSandboxSid()
    expect(isSandboxSid(a)).toBe(true)
    expect(newSandboxSid()).not.toBe(a)
    expect(newSandboxSid(() => Buffer.alloc(32, 0xff))).toBe(`S-1-15-3-1024${'-4294967295'.repeat(8)}`)
    expect(isSandboxSid('S-1-5-32-544')).toBe(false)
  })

  it('reads status records line by line and skips a torn one', () => {
    const recs = parseRecords('{"ok":true,"token":"write-restricted","integrity":"low","job":true,"mitigations":true,"pid":9,"handles":[1,2]}\n{"exit":tr\n')
    expect(recs).toHaveLength(1)
  })

  it('maps a launcher error to a SetupError; a program that could not be started is step execve', () => {
    const e = setupErrorOf({ step: 'spawn', call: 'CreateProcessAsUserW', error: 2, detail: 'C:\\x.exe' })
    expect(e).toMatchObject({ step: 'execve', errnoCode: 'ENOENT', errno: 2 })
    expect(setupErrorOf({ step: 'acl', call: 'SetSecurityInfo(DACL)', error: 5, detail: 'C:\\w' })).toMatchObject({ step: 'acl', errnoCode: 'EACCES' })
    expect(setupErrorOf({ step: 'job', call: 'X', error: 1234, detail: '' }).errnoCode).toBe('WIN32_1234')
  })
})
