/**
 * The launcher's contract, driven directly (no TypeScript layer): the plan
 * arrives on --plan-fd, one status record leaves on --status-fd, and every
 * other descriptor >= 3 is closed before execve unless the plan keeps it.
 * Node marks inherited fds close-on-exec, so only a direct spawn with an
 * explicit stdio slot hands the launcher a live extra fd.
 */
import { spawn } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable, Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { loadNative } from '../../src/native/load.js'
import { describeWhere, host } from '../helpers/requirements.js'

const { launcherPath } = loadNative()
const probe = join(inject('cordonProbeDir'), 'probe-procs')
const EXTRA_FD = 5

interface LaunchOutcome {
  exitCode: number | null
  stdout: string
  status: Record<string, unknown>[]
}

let dir: string
let secretFd: number
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cordon-launcher-'))
  writeFileSync(join(dir, 'secret'), 'secret\n')
  secretFd = openSync(join(dir, 'secret'), 'r')
})
afterAll(() => {
  closeSync(secretFd)
  rmSync(dir, { recursive: true, force: true })
})

function plan(argv: string[], extra: Record<string, unknown> = {}) {
  return { v: 1, argv, env: ['PATH=/usr/bin:/bin'], cwd: dir, compat: 'best-effort', rlimits: [], landlock: null, seccomp: null, ...extra }
}

function collect(stream: Readable): Promise<string> {
  return new Promise((resolve) => {
    let text = ''
    stream.on('data', (d: Buffer) => (text += d.toString()))
    stream.on('close', () => resolve(text))
  })
}

/** Spawn the launcher with the plan on fd 3, status on fd 4 and the secret file on fd 5. */
async function launch(planText: string, args = ['--plan-fd', '3', '--status-fd', '4']): Promise<LaunchOutcome> {
  const child = spawn(launcherPath, args, { env: {}, stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe', secretFd] })
  const planPipe = child.stdio[3] as Writable
  planPipe.on('error', () => {}) // the launcher may exit before reading a plan it refuses
  planPipe.end(planText)
  const [stdout, status, exitCode] = await Promise.all([
    collect(child.stdout!),
    collect(child.stdio[4] as Readable),
    new Promise<number | null>((resolve) => child.on('close', resolve)),
  ])
  return { exitCode, stdout, status: status.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) }
}

function plain(argv: string[]): Promise<string> {
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'inherit', 'ignore', 'ignore', secretFd] })
  return collect(child.stdout!)
}

describeWhere(host().compiler, 'launcher: inherited descriptors', () => {
  it(`an fd the launcher inherited (fd ${EXTRA_FD}) is closed before execve`, async () => {
    const r = await launch(JSON.stringify(plan([probe, 'fd', String(EXTRA_FD)])))
    // The setup record, then the supervisor's record of the command's exit.
    expect(r.status).toEqual([expect.objectContaining({ ok: true }), { exit: true, code: 0 }])
    expect(r.stdout.trim()).toBe('EBADF')
    expect((await plain([probe, 'fd', String(EXTRA_FD)])).trim()).toBe('OK') // the probe sees a live fd
  })

  it('the plan and status fds do not reach the command either', async () => {
    for (const fd of ['3', '4']) expect((await launch(JSON.stringify(plan([probe, 'fd', fd])))).stdout.trim()).toBe('EBADF')
  })

  it('a fd named in keepFds is passed through', async () => {
    const r = await launch(JSON.stringify(plan([probe, 'fd', String(EXTRA_FD)], { keepFds: [EXTRA_FD] })))
    expect(r.stdout.trim()).toBe('OK')
  })
})

describe('launcher: failures are status records, exit 125', () => {
  it('malformed JSON → step plan', async () => {
    const r = await launch('{"v":1,')
    expect(r.exitCode).toBe(125)
    expect(r.status).toEqual([expect.objectContaining({ ok: false, step: 'plan', syscall: 'parse' })])
  })

  it('an unknown plan version → step plan', async () => {
    const r = await launch(JSON.stringify({ ...plan(['true']), v: 2 }))
    expect(r.exitCode).toBe(125)
    expect(r.status).toEqual([expect.objectContaining({ ok: false, step: 'plan' })])
  })

  it('a missing cwd → step cwd, errno ENOENT, the path in detail', async () => {
    const gone = join(dir, 'gone')
    const r = await launch(JSON.stringify({ ...plan(['true']), cwd: gone }))
    expect(r.exitCode).toBe(125)
    expect(r.status).toEqual([expect.objectContaining({ ok: false, step: 'cwd', syscall: 'chdir', errno: 2, detail: gone })])
  })

  it('a program not found → step execve, errno ENOENT, exit 127 like env(1)', async () => {
    const r = await launch(JSON.stringify(plan(['cordon-no-such-program'])))
    expect(r.exitCode).toBe(127)
    expect(r.status.find((s) => s.ok === false)).toMatchObject({ step: 'execve', errno: 2, detail: 'cordon-no-such-program' })
    expect(r.status.at(-1)).toEqual({ exit: true, code: 127 })
  })

  it('without --plan-fd/--status-fd it refuses to run anything', async () => {
    const r = await launch(JSON.stringify(plan(['true'])), [])
    expect(r.exitCode).toBe(125)
    expect(r.status).toEqual([])
  })
})
