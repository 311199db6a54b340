/**
 * A run's lifecycle: timeouts and AbortSignal kill the whole process group
 * (the launcher made the command a session leader), and sandboxes with
 * different profiles run at the same time, each confined by its own.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createSandbox, type CordonError } from '../../../src/index.js'
import { self } from '../../helpers/identity.js'
import { namespacesMissing } from '../../helpers/modes.js'
import { dead, eventually } from '../../helpers/processes.js'
import { itWhere } from '../../helpers/requirements.js'

const dir = mkdtempSync(join(tmpdir(), 'cordon-lifecycle-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const options = { cwd: dir, mode: 'landlock', compat: 'best-effort' } as const

/** Whether any process's command line contains `needle` (arguments joined by NUL). */
function running(needle: string): boolean {
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(needle)) return true
    } catch {
      /* gone meanwhile */
    }
  }
  return false
}

// The shell prints the pid of a background grandchild, then waits forever.
const GROUP = ['sh', '-c', 'sleep 60 & echo $!; wait']

// A grandchild that left the process group (setsid) and prints its pid.
const ESCAPEE = ['sh', '-c', 'setsid sh -c \'sleep 60 & echo $!; wait\' & wait']

describe('timeouts', () => {
  it('also kill a descendant that left the process group with setsid', async () => {
    const sb = createSandbox(options)
    const r = await sb.run(ESCAPEE, { timeout: 700 })
    sb.close()
    expect(r).toMatchObject({ timedOut: true, signal: 'SIGKILL' })
    const escapee = Number(r.stdout.trim())
    expect(escapee).toBeGreaterThan(0)
    expect(await eventually(() => dead(escapee), 3000)).toBe(true)
  })

  it('kill the whole process group and report timedOut', async () => {
    const sb = createSandbox(options)
    const started = Date.now()
    const r = await sb.run(GROUP, { timeout: 500 })
    sb.close()
    expect(r).toMatchObject({ timedOut: true, isCanceled: false, signal: 'SIGKILL', exitCode: null })
    expect(Date.now() - started).toBeLessThan(10_000)
    const grandchild = Number(r.stdout.trim())
    expect(grandchild).toBeGreaterThan(0)
    expect(await eventually(() => dead(grandchild), 3000)).toBe(true)
  })

  it('a command that finishes in time is not marked timedOut', async () => {
    const sb = createSandbox(options)
    const r = await sb.run(['true'], { timeout: 10_000 })
    sb.close()
    expect(r).toMatchObject({ timedOut: false, exitCode: 0, signal: null })
  })
})

describe('AbortSignal', () => {
  it('aborting mid-run kills the process group and reports aborted', async () => {
    const sb = createSandbox(options)
    const controller = new AbortController()
    const run = sb.run(GROUP, { signal: controller.signal })
    setTimeout(() => controller.abort(), 400)
    const r = await run
    sb.close()
    expect(r).toMatchObject({ isCanceled: true, timedOut: false, signal: 'SIGKILL' })
    expect(await eventually(() => dead(Number(r.stdout.trim())), 3000)).toBe(true)
  })

  // An already aborted signal: nothing is spawned, and the run resolves as
  // any canceled run does (issue 11, bug 4: it rejected with AbortError).
  it('an already aborted signal: canceled at once, nothing spawned, the same contract as an abort mid-run', async () => {
    const sb = createSandbox(options)
    const started = Date.now()
    const outcome = await sb.run(['sleep', '30'], { signal: AbortSignal.abort() }).then(
      (r) => r,
      (e: CordonError) => ({ code: e.code }),
    )
    const child = sb.spawn('sleep', ['30'], { signal: AbortSignal.abort() })
    const spawned = await child
    sb.close()
    expect(outcome).toMatchObject({ isCanceled: true, timedOut: false, exitCode: null, signal: null, stdout: '', stderr: '' })
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(spawned).toMatchObject({ isCanceled: true, exitCode: null })
    expect(child.pid).toBeUndefined()
    // The streams it asked for exist, empty: code that writes and reads them keeps working.
    child.stdin!.end('ignored')
    expect(await (await import('node:stream/consumers')).text(child.stdout!)).toBe('')
    expect((await child.enforcement).notes.join('\n')).toMatch(/canceled before the command started/)
  })

  it('bad input is still an error when the signal is already aborted', async () => {
    const sb = createSandbox(options)
    const e = await sb.run([''], { signal: AbortSignal.abort() }).then(() => undefined, (err: CordonError) => err)
    sb.close()
    expect(e?.code).toBe('E_POLICY')
  })

  // An abort sent right after the spawn, while the launcher is still being
  // set up: the result says isCanceled (never a SetupError), and nothing of
  // the command is left running. In namespace mode the stop waits for the
  // launcher's first record (killing bwrap earlier can orphan its child: CI
  // saw `sleep` run to its end), so the command may have started; in
  // Landlock mode the launcher may be stopped before it reports, and then
  // `enforcement` resolves with the planned report and a note saying so.
  const abortRightAway = async (mode: 'namespaces' | 'landlock') => {
    const marker = mode === 'namespaces' ? '31.4159' : '31.2718'
    const sb = createSandbox({ ...options, mode })
    const outcomes = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const controller = new AbortController()
        const run = sb.spawn('sleep', [marker], { signal: controller.signal })
        controller.abort()
        const outcome = await run.then((r) => ({ isCanceled: r.isCanceled }), (e: CordonError) => ({ code: e.code }))
        const enforcement = await run.enforcement.then((e) => e.mode, (e: CordonError) => e.code)
        return { outcome, enforcement }
      }),
    )
    sb.close()
    for (const o of outcomes) {
      expect(o.outcome).toEqual({ isCanceled: true })
      // Stopped before the launcher reported: the planned report, never a rejection.
      expect(o.enforcement).toBe(mode)
    }
    expect(await eventually(() => !running(`sleep\0${marker}`), 3000)).toBe(true)
  }

  itWhere(namespacesMissing(self()), 'namespace mode: an abort during setup stops the run and leaves nothing running', () => abortRightAway('namespaces'))

  it('Landlock mode: an abort during setup stops the run and leaves nothing running', () => abortRightAway('landlock'))

  it('a timeout that fires during setup is a timeout, not a SetupError', async () => {
    const sb = createSandbox(options)
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, () => sb.run(['sleep', '30'], { timeout: 1 }).then((r) => ({ timedOut: r.timedOut }), (e: CordonError) => ({ code: e.code }))),
    )
    sb.close()
    for (const o of outcomes) expect(o).toEqual({ timedOut: true })
  })

  it('a timeout and an abort: whichever stops the run first is the one reported, never both', async () => {
    const sb = createSandbox(options)
    const ac = new AbortController()
    const run = sb.run(['sleep', '30'], { timeout: 200, signal: ac.signal })
    setTimeout(() => ac.abort(), 1500)
    const timedOut = await run
    const ac2 = new AbortController()
    const run2 = sb.run(['sleep', '30'], { timeout: 5000, signal: ac2.signal })
    setTimeout(() => ac2.abort(), 200)
    const canceled = await run2
    sb.close()
    expect(timedOut).toMatchObject({ timedOut: true, isCanceled: false })
    expect(canceled).toMatchObject({ timedOut: false, isCanceled: true })
  })
})

describe('concurrency', () => {
  it('two sandboxes with different profiles at once: each confined by its own', async () => {
    const a = mkdtempSync(join(dir, 'a-'))
    const b = mkdtempSync(join(dir, 'b-'))
    const writer = createSandbox({ ...options, cwd: a, profile: 'workspace-write' })
    const reader = createSandbox({ ...options, cwd: b, profile: 'read-only' })
    const tryWrite = (target: string) => ['sh', '-c', `sleep 0.3; echo x > '${target}/f' && echo wrote || echo denied`]
    const [wa, wb, ra, rb] = await Promise.all([
      writer.run(tryWrite(a)),
      writer.run(tryWrite(b)),
      reader.run(tryWrite(a)),
      reader.run(tryWrite(b)),
    ])
    writer.close()
    reader.close()
    expect([wa, wb, ra, rb].map((r) => r.stdout.trim())).toEqual(['wrote', 'denied', 'denied', 'denied'])
    expect(wa.enforcement.filesystem.writeRoots).toContain(a)
    expect(ra.enforcement.filesystem.writeRoots).not.toContain(a)
  })

  it('a network-on sandbox and a network-off sandbox at once', async () => {
    const on = createSandbox({ ...options, network: 'on' })
    const off = createSandbox({ ...options, network: 'off' })
    const socket = ['perl', '-MSocket', '-e', 'socket(S, PF_INET, SOCK_STREAM, 0) or die "$!\\n"; print "ok\\n"']
    const [ron, roff] = await Promise.all([on.run(socket), off.run(socket)])
    on.close()
    off.close()
    expect(ron.stdout.trim()).toBe('ok')
    expect(roff.stderr.trim()).toBe('Address family not supported by protocol')
  })
})

describe('maxBuffer', () => {
  it('cuts output at maxBuffer and says so in the result', async () => {
    const sb = createSandbox(options)
    const big = await sb.run(['sh', '-c', 'head -c 5000 /dev/zero'], { maxBuffer: 1000 })
    const small = await sb.run(['sh', '-c', 'echo hi'], { maxBuffer: 1000 })
    sb.close()
    expect(big.stdout.length).toBe(1000)
    expect(big.outputTruncated).toBe(true)
    expect(small).toMatchObject({ stdout: 'hi\n', outputTruncated: false })
  })
})

/**
 * A command that runs `setup` in its $TMPDIR, prints the dir, then waits for a line
 * on stdin: the test acts while it runs and lets it finish with `finish()`.
 */
async function holdInTmp(sb: ReturnType<typeof createSandbox>, setup: string) {
  const p = sb.spawn('sh', ['-c', `${setup} && echo "$TMPDIR"; read line`], { stdin: 'pipe' })
  let out = ''
  p.stdout!.on('data', (d: Buffer) => (out += d))
  expect(await eventually(() => out.includes('\n'))).toBe(true)
  return { tmp: out.trim(), finish: () => (p.stdin!.end('go\n'), p) }
}

describe('close()', () => {
  it('while a command runs: its temp dir stays until the run ends (a command could swap a subdirectory for a symlink mid-removal), then goes', async () => {
    const sb = createSandbox(options)
    const { tmp, finish } = await holdInTmp(sb, 'mkdir "$TMPDIR/d"')
    expect(tmp).toMatch(/cordon-/)
    sb.close()
    expect(existsSync(join(tmp, 'd'))).toBe(true) // the command still runs: nothing removed under it
    await finish()
    expect(await eventually(() => !existsSync(tmp))).toBe(true)
  })
})

describe('close() and a temp dir that cannot be removed', () => {
  it('a removal that fails after the last run ends does not throw into the caller (no unhandled rejection); the result still arrives', async () => {
    const sb = createSandbox(options)
    const { tmp, finish } = await holdInTmp(sb, 'mkdir "$TMPDIR/keep"; touch "$TMPDIR/keep/f"')
    expect(await eventually(() => existsSync(join(tmp, 'keep/f')))).toBe(true)
    // The immutable flag makes even root's removal fail (EPERM), as an unwritable directory does for other users.
    const immutable = spawnSync('chattr', ['+i', join(tmp, 'keep/f')], { encoding: 'utf8' })
    if (immutable.status !== 0) console.warn(`[cordon lifecycle test] no immutable flag here (${immutable.stderr.trim()}): the removal will succeed`)
    sb.close()
    const r = await finish()
    expect(r.exitCode).toBe(0)
    await new Promise((resolve) => setTimeout(resolve, 100)) // the completion has run: an exception there would fail this file
    spawnSync('chattr', ['-i', join(tmp, 'keep/f')])
    rmSync(tmp, { recursive: true, force: true })
  })
})
