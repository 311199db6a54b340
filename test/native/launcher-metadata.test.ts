/**
 * The launcher's metadata filter (native/linux/metadata.h), driven directly
 * with a Landlock-mode plan: what the status record says, and what a chmod
 * gets beneath the write root and outside it — with the supervisor holding
 * the listener, where no listener can be had (a parent filter refuses
 * NEW_LISTENER, as a cordon sandbox does: the calls are refused outright),
 * and without the filter (the gap it closes). The escape tests
 * (test/escape/linux/metadata.test.ts) cover every syscall variant.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { loadNative } from '../../src/native/load.js'
import { metadataProgram, seccompProgram } from '../../src/platform/linux/landlock/plan.js'
import { runLauncher } from '../helpers/launcher-run.js'
import { repoRoot } from '../helpers/paths.js'

const probe = join(inject('cordonProbeDir'), 'probe-metadata')
let dir: string
let denyCall: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cordon-metadata-'))
  mkdirSync(join(dir, 'work'))
  mkdirSync(join(dir, 'outside'))
  denyCall = join(dir, 'deny-call')
  execFileSync('cc', ['-O1', '-Wall', '-o', denyCall, join(repoRoot, 'test/native/fixtures/deny-call.c')])
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function plan(argv: string[], extra: Record<string, unknown> = {}) {
  const landlock = { rules: [{ path: '/', access: ['read'] }, { path: join(dir, 'work'), access: ['read', 'write'] }], networkOff: true, scopeSignal: true, scopeAbstractUnix: true, log: false }
  return { v: 1, argv, env: ['PATH=/usr/bin:/bin'], cwd: join(dir, 'work'), compat: 'best-effort', rlimits: [], landlock, seccomp: seccompProgram('off'), metadata: metadataProgram('off'), ...extra }
}

const launch = runLauncher

let n = 0
const file = (where: 'work' | 'outside') => {
  const path = join(dir, where, `f${n++}`)
  writeFileSync(path, 'x\n', { mode: 0o644 })
  return path
}
const modeOf = (path: string) => statSync(path).mode & 0o777

describe('launcher: the metadata filter', () => {
  it('the supervisor holds the listener (metadata: 1): chmod works beneath the write root, EPERM outside', async () => {
    const [inside, outside] = [file('work'), file('outside')]
    const a = await launch(plan([probe, 'chmod', inside, '600']))
    expect(a.status[0]).toMatchObject({ ok: true, metadata: 1 })
    expect(a.stdout).toBe('OK')
    expect(modeOf(inside)).toBe(0o600)
    const b = await launch(plan([probe, 'chmod', outside, '600']))
    expect(b.stdout).toBe('EPERM')
    expect(modeOf(outside)).toBe(0o644)
  })

  it('no listener to be had (a parent filter refuses NEW_LISTENER): refused everywhere (metadata: 0), never let through', async () => {
    const [inside, outside] = [file('work'), file('outside')]
    const a = await launch(plan([probe, 'chmod', inside, '600']), [denyCall, 'listener'])
    expect(a.status[0]).toMatchObject({ ok: true, metadata: 0 })
    expect(a.stdout).toBe('EPERM')
    expect(modeOf(inside)).toBe(0o644)
    expect((await launch(plan([probe, 'chmod', outside, '600']), [denyCall, 'listener'])).stdout).toBe('EPERM')
    expect(modeOf(outside)).toBe(0o644)
  })

  it('without the filter (metadata: -1) Landlock alone lets chmod outside the write roots through: the gap it closes', async () => {
    const outside = file('outside')
    const r = await launch(plan([probe, 'chmod', outside, '600'], { metadata: undefined }))
    expect(r.status[0]).toMatchObject({ ok: true, metadata: -1 })
    expect(r.stdout).toBe('OK')
    expect(modeOf(outside)).toBe(0o600)
  })

  it('a malformed program is a setup error of step metadata, not a run without it', async () => {
    const r = await launch(plan([probe, 'chmod', file('outside'), '600'], { metadata: { bpf: Buffer.alloc(12).toString('base64'), rules: 1 } }))
    expect(r.status[0]).toMatchObject({ ok: false, step: 'metadata', syscall: 'validate', errno: 22 })
    expect(r.stdout).toBe('')
  })
})

describe('compileSeccomp: the notify action', () => {
  // Each BPF instruction: u16 code, u8 jt, u8 jf, u32 k.
  const constants = (bpf: Buffer) => Array.from({ length: bpf.length / 8 }, (_, i) => bpf.readUInt32LE(i * 8 + 4))

  it('returns SECCOMP_RET_USER_NOTIF for a notify rule', () => {
    const bpf = loadNative().binding.compileSeccomp([{ syscall: 'chmod', action: 'notify', args: [] }])
    expect(constants(bpf)).toContain(0x7fc00000)
  })

  it('numbers syscalls newer than the linked libseccomp (setxattrat 463, removexattrat 466) instead of leaving them open', () => {
    const bpf = loadNative().binding.compileSeccomp([{ syscall: 'setxattrat', action: 'notify', args: [] }, { syscall: 'removexattrat', action: 'notify', args: [] }])
    expect(constants(bpf)).toEqual(expect.arrayContaining([463, 466]))
  })

  it('an unknown name is still an error (never a rule skipped)', () => {
    expect(() => loadNative().binding.compileSeccomp([{ syscall: 'no_such_call', action: 'notify', args: [] }])).toThrow(/seccomp_syscall_resolve_name/)
  })
})
