/**
 * The wire protocol has one definition in C (native/include/cordon-wire.h)
 * and one copy in TypeScript (src/platform/linux/launch/wire.ts). The addon
 * exports every constant of the header (`binding.wire`); this test fails
 * when the two sides differ in any constant, and checks that the launcher
 * and the zygote really behave by those numbers.
 */
import { spawn } from 'node:child_process'
import { closeSync, existsSync, mkdtempSync, openSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable, Writable } from 'node:stream'
import { afterAll, describe, expect, it } from 'vitest'
import { loadNative } from '../../src/native/load.js'
import { EXIT_SETUP, LAUNCHER_ARGS, PLAN_FD, STATUS_FD, launch as startLaunch } from '../../src/platform/linux/launch/launch.js'
import type { LauncherPlan } from '../../src/platform/linux/landlock/plan.js'
import { WIRE } from '../../src/platform/linux/launch/wire.js'
import { zygoteFor } from '../../src/platform/linux/launch/zygote.js'

const { binding, launcherPath } = loadNative()

/** `{ fd: { plan: 3 } }` → [['fd.plan', 3]]; arrays are values. */
function flatten(o: object, prefix = ''): [string, unknown][] {
  return Object.entries(o).flatMap(([k, v]): [string, unknown][] =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? flatten(v as object, `${prefix}${k}.`) : [[`${prefix}${k}`, v]],
  )
}

const native = new Map(flatten(binding.wire))
const typescript = new Map(flatten(WIRE))

describe('cordon-wire.h ↔ wire.ts', () => {
  it('define the same constants', () => {
    expect([...typescript.keys()].sort()).toEqual([...native.keys()].sort())
    expect(native.size).toBeGreaterThan(20)
  })

  it.each([...native.keys()])('%s has the same value on both sides', (key) => {
    expect(typescript.get(key), `${key}: wire.ts differs from cordon-wire.h`).toEqual(native.get(key))
  })

  it('launch.ts and zygote.ts take their numbers from it', () => {
    expect([PLAN_FD, STATUS_FD, EXIT_SETUP]).toEqual([WIRE.fd.plan, WIRE.fd.status, WIRE.exit.setup])
    expect(LAUNCHER_ARGS).toEqual([WIRE.arg.planFd, String(WIRE.fd.plan), WIRE.arg.statusFd, String(WIRE.fd.status)])
  })
})

/** Run the launcher directly with `plan` on the plan fd; its exit status and status records. */
async function launch(plan: unknown): Promise<{ exitCode: number | null; records: Record<string, unknown>[] }> {
  const stdio = Array.from({ length: WIRE.fd.childCount }, (_, fd) => (fd === WIRE.fd.plan || fd === WIRE.fd.status ? 'pipe' : 'ignore'))
  const child = spawn(launcherPath, [...LAUNCHER_ARGS], { env: {}, stdio: stdio as ('pipe' | 'ignore')[] })
  const planPipe = child.stdio[WIRE.fd.plan] as Writable
  planPipe.on('error', () => {}) // a refused plan may not be read to the end
  planPipe.end(JSON.stringify(plan))
  let text = ''
  ;(child.stdio[WIRE.fd.status] as Readable).on('data', (d: Buffer) => (text += d.toString()))
  const exitCode = await new Promise<number | null>((resolve) => child.on('close', resolve))
  return { exitCode, records: text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) }
}

describe('the launcher writes the records and exit statuses of the wire protocol', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cordon-wire-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const plan = (argv: string[], extra: object = {}) => ({ v: WIRE.plan.version, argv, env: ['PATH=/usr/bin:/bin'], cwd: dir, compat: 'best-effort', landlock: null, seccomp: null, ...extra })

  it('a command that starts: a setup record, then an exit record, with exactly the listed fields in order', async () => {
    const r = await launch(plan(['/bin/sh', '-c', 'exit 3']))
    expect(r.exitCode).toBe(3)
    expect(r.records.map((rec) => Object.keys(rec))).toEqual([[...WIRE.status.setup], ['exit', 'code']])
    expect(WIRE.status.exit).toEqual(expect.arrayContaining(Object.keys(r.records[1]!)))
  })

  it(`a step that fails: an error record with exactly the listed fields, exit ${WIRE.exit.setup}`, async () => {
    const r = await launch(plan(['/bin/true'], { cwd: join(dir, 'missing') }))
    expect(r.exitCode).toBe(WIRE.exit.setup)
    expect(r.records.map((rec) => Object.keys(rec))).toEqual([[...WIRE.status.error]])
  })

  it(`a plan of another version is refused (exit ${WIRE.exit.setup})`, async () => {
    const r = await launch(plan(['/bin/true'], { v: WIRE.plan.version + 1 }))
    expect([r.exitCode, r.records[0]?.step]).toEqual([WIRE.exit.setup, 'plan'])
  })

  it(`a command not found exits ${WIRE.exit.notFound}, one that cannot be executed ${WIRE.exit.cannotExecute}`, async () => {
    expect((await launch(plan([join(dir, 'nonexistent')]))).exitCode).toBe(WIRE.exit.notFound)
    expect((await launch(plan([dir]))).exitCode).toBe(WIRE.exit.cannotExecute)
  })
})

describe('the zygote holds to the limits of the wire protocol', () => {
  const socket = () => (zygoteFor(launcherPath) as unknown as { socket: number }).socket
  const call = (request: Buffer, fds: number[] = []) => binding.zygoteCall(socket(), request, fds, 5000)
  // An unknown request kind: refused with EINVAL once it has arrived whole.
  const padded = (bytes: number) => Buffer.concat([Buffer.from('Q\0'), Buffer.alloc(bytes - 2, 'x')])

  it(`takes a request of exactly ${WIRE.limit.requestBytes} bytes whole, refuses one byte more (EMSGSIZE)`, () => {
    expect(call(padded(WIRE.limit.requestBytes))).toBe(-22)
    expect(call(padded(WIRE.limit.requestBytes + 1))).toBe(-90)
  })

  it(`reads ${WIRE.limit.requestFields} fields, refuses more (E2BIG)`, () => {
    const fields = (n: number) => Buffer.from(`Q\0${'a\0'.repeat(n - 1)}`)
    expect(call(fields(WIRE.limit.requestFields))).toBe(-22)
    expect(call(fields(WIRE.limit.requestFields + 1))).toBe(-7)
  })

  it(`sends at most ${WIRE.fd.maxPerRequest} descriptors with one request`, () => {
    expect(() => call(Buffer.from('Q\0'), Array.from({ length: WIRE.fd.maxPerRequest + 1 }, () => 0))).toThrow(expect.objectContaining({ code: 'EINVAL', syscall: 'sendmsg' }))
    expect(call(Buffer.from('Q\0'), Array.from({ length: WIRE.fd.maxPerRequest }, () => 0))).toBe(-22)
  })
})

describe('the cgroup files of a launch request', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cordon-wire-cg-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it(`one the child cannot write itself into stops the launch before the command runs: step 'cgroup', exit ${WIRE.exit.setup}`, async () => {
    const marker = join(dir, 'ran')
    const plan = { v: WIRE.plan.version, argv: ['/bin/sh', '-c', `: > ${marker}`], env: ['PATH=/usr/bin:/bin'], cwd: dir, rlimits: [], landlock: null, seccomp: null }
    const readOnly = openSync('/dev/null', 'r') // write(2) on it: EBADF
    try {
      const l = startLaunch({ launcher: launcherPath, file: launcherPath, args: [...LAUNCHER_ARGS], plan: plan as unknown as LauncherPlan, cgroupProcs: [readOnly], stdin: 'ignore', stdout: 'pipe', stderr: 'pipe', streams: false })
      const [exit, final] = await Promise.all([l.exit, l.final])
      expect(exit.exitCode).toBe(WIRE.exit.setup)
      expect(final.setup).toMatchObject({ ok: false, step: 'cgroup', syscall: 'write', errno: 9 })
      expect(existsSync(marker)).toBe(false)
    } finally {
      closeSync(readOnly)
    }
  })
})
