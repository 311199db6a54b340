/**
 * The macOS launcher's logic, built and run on Linux against a test double
 * of libsandbox (test/helpers/darwin-double.ts): the profile reaches
 * sandbox_init unchanged, a failure of sandbox_init (or an already
 * sandboxed process) is exit 125 with the step and the compiler's message
 * on the status pipe and the command never runs, DYLD_* never reaches the
 * command, and a plan it cannot read is refused. What this cannot show:
 * that macOS's Seatbelt enforces the profile (not yet run on macOS).
 */
import { spawn } from 'node:child_process'
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect } from 'vitest'
import { encodeDarwinPlan, type DarwinLauncherPlan } from '../../src/platform/darwin/launcher-plan.js'
import { buildDarwinDouble, findClang, type DarwinDouble } from '../helpers/darwin-double.js'
import { firstMissing, host, itWhere, unless } from '../helpers/requirements.js'
import { removeTempDirs, tempDir } from '../helpers/temp.js'

const noCompiler = host().compiler
let double: DarwinDouble
let work: string

beforeAll(() => {
  if (noCompiler) return
  work = tempDir('cordon-darwin-launcher-')
  double = buildDarwinDouble(work)
})
beforeEach(() => {
  double?.reset()
  if (work) rmSync(join(work, 'ran'), { force: true })
})
afterAll(removeTempDirs)

interface Ran {
  code: number | null
  stdout: string
  records: Record<string, unknown>[]
}

/** Run the launcher on a plan (raw bytes or a plan object): its exit, stdout and status records. */
function runLauncher(plan: Buffer | DarwinLauncherPlan): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(double.launcher, ['--plan-fd', '3', '--status-fd', '4'], { env: {}, stdio: ['ignore', 'pipe', 'inherit', 'pipe', 'pipe'] })
    const status: Buffer[] = []
    const out: Buffer[] = []
    child.stdout!.on('data', (b: Buffer) => out.push(b))
    ;(child.stdio[4] as NodeJS.ReadableStream).on('data', (b: Buffer) => status.push(b))
    ;(child.stdio[3] as NodeJS.WritableStream).end(Buffer.isBuffer(plan) ? plan : encodeDarwinPlan(plan))
    child.on('error', reject)
    child.on('close', (code) => {
      const records = Buffer.concat(status).toString('utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>)
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), records })
    })
  })
}

const PROFILE = '(version 1)\n(deny default (with message "cordon-feed"))\n; "quoted" ünïcode 日本 \\ backslash\n(allow process-fork)\n'

function plan(over: Partial<DarwinLauncherPlan> = {}): DarwinLauncherPlan {
  const marker = join(work, 'ran')
  return {
    mode: 'seatbelt',
    profile: PROFILE,
    cwd: work,
    rlimits: [{ resource: 'nofile', soft: '256', hard: '256' }],
    argv: ['/bin/sh', '-c', `echo ran > "${marker}"; echo "pwd=$(pwd) dyld=\${DYLD_INSERT_LIBRARIES-unset} keep=$KEEP nofile=$(ulimit -n)"`],
    env: ['PATH=/usr/bin:/bin', 'KEEP=yes', 'DYLD_INSERT_LIBRARIES=/tmp/evil.dylib', 'DYLD_LIBRARY_PATH=/tmp'],
    ...over,
  }
}

describe('macOS launcher (built on Linux against a libsandbox double)', () => {
  itWhere(noCompiler, 'applies the profile unchanged, then runs the command without DYLD_* and with the plan\'s cwd and limits', async () => {
    const r = await runLauncher(plan())
    expect(r.code).toBe(0)
    expect(double.profile()).toBe(PROFILE)
    expect(double.calls()).toEqual(['ptrace PT_DENY_ATTACH', 'sandbox_check self', 'sandbox_init flags=0'])
    expect(r.records).toEqual([{ ok: true, seatbelt: true, denyAttach: true, coreZero: true, dyldScrubbed: 2 }])
    expect(r.stdout.trim()).toBe(`pwd=${work} dyld=unset keep=yes nofile=256`)
  })

  itWhere(noCompiler, 'a large generated profile reaches sandbox_init byte for byte', async () => {
    const big = `(version 1)\n${Array.from({ length: 3000 }, (_, i) => `(allow file-read* (literal "/Users/dev/ü/${i}"))`).join('\n')}\n`
    const r = await runLauncher(plan({ profile: big, argv: ['/bin/true'] }))
    expect(r.code).toBe(0)
    expect(double.profile()).toBe(big)
  })

  itWhere(noCompiler, 'sandbox_init failing: exit 125, step and compiler message on the status pipe, the command never runs', async () => {
    double.failWith('unbound variable: file-read-everything')
    const r = await runLauncher(plan())
    expect(r.code).toBe(125)
    expect(r.records).toEqual([{ ok: false, step: 'seatbelt', syscall: 'sandbox_init', errno: 1, detail: 'unbound variable: file-read-everything' }])
    expect(double.calls()).toContain('sandbox_free_error')
    expect(existsSync(join(work, 'ran'))).toBe(false)
    expect(r.stdout).toBe('')
  })

  itWhere(noCompiler, 'already inside a Seatbelt sandbox: refused before sandbox_init, saying why, the command never runs', async () => {
    double.markSandboxed()
    const r = await runLauncher(plan())
    expect(r.code).toBe(125)
    expect(r.records[0]).toMatchObject({ ok: false, step: 'seatbelt', syscall: 'sandbox_check', errno: 1 })
    expect(String(r.records[0]!.detail)).toMatch(/already inside a Seatbelt sandbox.*do not nest.*sandbox_apply: Operation not permitted/)
    expect(double.profile()).toBeUndefined()
    expect(existsSync(join(work, 'ran'))).toBe(false)
  })

  itWhere(noCompiler, 'a plan it cannot read is refused (fail closed): wrong magic, truncated, trailing bytes, empty profile in seatbelt mode', async () => {
    const good = encodeDarwinPlan(plan())
    const broken = [
      Buffer.from('cordon-linux-plan\x001\x00'),
      good.subarray(0, good.length - 3),
      Buffer.concat([good, Buffer.from('extra\0')]),
      encodeDarwinPlan(plan({ profile: '' })),
    ]
    for (const bytes of broken) {
      double.reset()
      const r = await runLauncher(bytes)
      expect(r.code).toBe(125)
      expect(r.records[0]).toMatchObject({ ok: false, step: 'plan' })
      expect(double.calls()).not.toContain('sandbox_init flags=0')
      expect(existsSync(join(work, 'ran'))).toBe(false)
    }
  })

  itWhere(noCompiler, 'mode none (an unsandboxed profile) applies no profile and says so', async () => {
    const r = await runLauncher(plan({ mode: 'none', profile: '', argv: ['/bin/true'] }))
    expect(r.code).toBe(0)
    expect(r.records).toEqual([{ ok: true, seatbelt: false, denyAttach: true, coreZero: true, dyldScrubbed: 2 }])
    expect(double.calls()).toEqual(['ptrace PT_DENY_ATTACH'])
  })

  itWhere(noCompiler, 'a command that is not found: ok, then an execve record, exit 127', async () => {
    const r = await runLauncher(plan({ argv: ['cordon-no-such-command'] }))
    expect(r.code).toBe(127)
    expect(r.records).toEqual([
      { ok: true, seatbelt: true, denyAttach: true, coreZero: true, dyldScrubbed: 2 },
      { ok: false, step: 'execve', syscall: 'execve', errno: 2, detail: 'cordon-no-such-command' },
    ])
  })
})

describe('macOS launcher with clang, the compiler of macOS', () => {
  const clang = findClang()
  const missing = firstMissing(noCompiler, unless(clang !== undefined, 'no clang here (the macOS launcher is built with clang on macOS, with its own warnings): apt-get install clang'))
  itWhere(missing, 'builds with -Werror under clang and applies the profile the same way', async () => {
    const built = buildDarwinDouble(tempDir('cordon-darwin-clang-'), clang)
    const child = spawn(built.launcher, ['--plan-fd', '3', '--status-fd', '4'], { env: {}, stdio: ['ignore', 'ignore', 'inherit', 'pipe', 'pipe'] })
    ;(child.stdio[3] as NodeJS.WritableStream).end(encodeDarwinPlan(plan({ argv: ['/bin/true'] })))
    const code = await new Promise((resolve) => child.on('close', resolve))
    expect(code).toBe(0)
    expect(built.profile()).toBe(PROFILE)
  })
})
