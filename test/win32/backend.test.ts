/**
 * The Windows backend, end to end: Windows' node.exe loads the addon and
 * runs commands through the backend and its launcher — under Wine on Linux
 * (CI here), natively on Windows. Each probe (fixtures/probe.c) runs inside
 * the sandbox and reports what it could do.
 *
 * Wine implements job objects (kill-on-close included), process creation,
 * pipes and command lines, so those are asserted under Wine. It enforces no
 * restricted token, integrity level, ACL or job limit: those tests are
 * written, and skipped under Wine with what was measured there (CI on real
 * Windows runs them).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { describeWhere, itWhere, unless } from '../helpers/requirements.js'
import { removeTempDirs, tempDir } from '../helpers/temp.js'
import { compileWindows, onWindows, runDriver, stageCordon, windowsMissing, winPath } from '../helpers/windows.js'
import { ADDON_ABI } from '../../src/native/load.js'

interface RunResult {
  setup: { platform: { os: string; integrity: string; capabilitySid: string; launcher?: { pid: number; pipes: number[] } }; mechanisms: string[] } | null
  setupError: { name: string; step: string; errnoCode: string; message: string } | null
  exitCode: number | null
  signal: string | null
  stdout: string
  stderr: string
  notes: string[]
  journalsDuring: string[]
  journalsAfter: string[]
  grandchildAlive: boolean | null
  grandchildAliveBefore: boolean | null
}

/** What Wine does not enforce, as measured under wine-8.0 (docs/windows.md, "What is verified how"). */
const realWindows = (what: string) => unless(onWindows, `needs real Windows: Wine ${what}`)

describeWhere(windowsMissing(), 'Windows backend (under Wine on Linux)', () => {
  let work: string
  let stage: string
  let probe: string
  let ws: string

  beforeAll(async () => {
    work = tempDir('cordon-win32-')
    stage = await stageCordon(join(work, 'stage'))
    probe = join(work, 'probe.exe')
    compileWindows(join(__dirname, 'fixtures', 'probe.c'), probe, ['shell32', 'advapi32'])
    ws = join(work, 'ws')
    mkdirSync(join(ws, '.git', 'hooks'), { recursive: true })
  }, 180_000)
  afterAll(removeTempDirs)

  const env = ['SystemRoot=C:\\windows', 'PATH=C:\\windows\\system32']
  const policy = (over: object = {}) => ({
    profileName: 'test', cwd: winPath(ws), tmpdir: winPath(ws), readAll: true, readRoots: ['\\'], writeRoots: [winPath(ws)],
    denyRead: [], denyGlobs: [], denyGlobsTruncated: false, protectedPaths: [winPath(join(ws, '.git'))], network: 'off',
    env: {}, envDropped: [], limits: {}, unsandboxed: false, ...over,
  })
  const run = (args: string[], { policy: p, ...over }: { policy?: object; [k: string]: unknown } = {}) =>
    runDriver<RunResult>(work, { op: 'run', stage: winPath(stage), policy: policy(p), argv: [winPath(probe), ...args], env, ...over })
  const json = (r: { stdout: string }) => JSON.parse(r.stdout.trim().split('\n')[0] ?? '{}') as Record<string, unknown>
  /** The probe run unconfined, straight from Node: each enforcement test's control (the probe can do it outside). */
  const direct = async (args: string[]) => json(await runDriver<{ stdout: string }>(work, { op: 'direct', argv: [winPath(probe), ...args] }))

  it('the addon loads through node-gyp-build in Windows node, and the launcher is found beside it', async () => {
    const r = await runDriver<{ resolved: string; abiVersion: number; probe: { version: string; wine: string | null }; launcherPath: string; exports: string[] }>(work, { op: 'load', stage: winPath(stage) })
    expect(r.resolved.toLowerCase()).toContain('prebuilds\\win32-x64\\cordon.node')
    expect(r.abiVersion).toBe(ADDON_ABI) // the version the TypeScript side requires (src/native/load.ts)
    expect(r.probe.version).toMatch(/^\d+\.\d+\.\d+$/)
    expect(r.probe.wine === null).toBe(onWindows) // Wine says so, and doctor reports it
    expect(r.launcherPath.toLowerCase()).toMatch(/prebuilds\\win32-x64\\cordon-launcher\.exe$/)
    expect(r.exports).toEqual(expect.arrayContaining(['win32Probe', 'hardenSelf', 'wire']))
    expect(r.exports).not.toContain('compileSeccomp')
  }, 60_000)

  it('createSandbox().run() works end to end on Windows paths, and the report says what is missing and how it was verified', async () => {
    const r = await runDriver<{ exitCode: number; stdout: string; enforcement: { mode: string; network: string; missing: { protection: string }[]; notes: string[]; filesystem: { writeRoots: string[] } } }>(work, {
      op: 'sandbox', stage: winPath(stage), cwd: winPath(ws), write: [winPath(ws)], argv: [winPath(probe), 'args', 'a b'],
    })
    expect(r.exitCode).toBe(0)
    expect(JSON.parse(r.stdout.trim())).toEqual({ args: ['a b'] })
    expect(r.enforcement.mode).toBe('restricted-token')
    expect(r.enforcement.network).toBe('on')
    expect(r.enforcement.missing.map((m) => m.protection)).toContain('network')
    expect(r.enforcement.filesystem.writeRoots).toContain(winPath(ws))
    expect(r.enforcement.notes).toContain('verified: runs under Wine; token, ACL, job limits not yet run on real Windows')
  }, 60_000)

  it('doctor says what this Windows is and, under Wine, that nothing but kill-on-close is enforced', async () => {
    const r = await runDriver<{ platform: string; kernel: string; checks: { mechanism: string; ok: boolean; detail: string }[] }>(work, { op: 'doctor', stage: winPath(stage) })
    expect(r.platform).toBe('win32')
    expect(r.kernel).toMatch(/^Windows \d+\.\d+\.\d+/)
    const token = r.checks.find((c) => c.mechanism === 'restricted token + ACLs + job object')
    expect(token?.ok).toBe(onWindows)
    if (!onWindows) expect(token?.detail).toContain('Wine enforces no restricted token')
    expect(r.checks.find((c) => c.mechanism === 'network')?.ok).toBe(false)
  }, 60_000)

  describe('the launcher refuses a bad plan with a setup error and runs nothing', () => {
    const good = (probeExe: string) => ['v', '1', 'app', probeExe, 'cmdline', 'p exit 0', 'cwd', 'C:\\', 'sid', 'S-1-15-3-1024-1-2-3-4-5-6-7-8', 'journal', 'C:\\cordon-journal-test']
    it.each([
      ['an unknown key', (f: string[]) => [...f, 'frobnicate', 'x', 'end', ''], 'bad field frobnicate'],
      ['another plan version', (f: string[]) => ['v', '2', ...f.slice(2), 'end', ''], ''],
      ['a bad number', (f: string[]) => [...f, 'procs', '12x', 'end', ''], 'bad field procs'],
      ['a plan cut short (the pipe closed before `end`)', (f: string[]) => f, ''],
    ])('%s', async (_name, make, detail) => {
      const r = await runDriver<{ status: string; code: number }>(work, { op: 'rawPlan', stage: winPath(stage), fields: make(good(winPath(probe))), close: true })
      expect(r.code).toBe(125)
      const rec = JSON.parse(r.status.trim()) as { ok: boolean; step: string; detail: string }
      expect(rec).toMatchObject({ ok: false, step: 'plan' })
      if (detail) expect(rec.detail).toBe(detail)
    }, 60_000)
  })

  it('a write root that is not there fails the launch at step acl, and what was changed before is restored', async () => {
    const r = await run(['exit', '0'], { policy: { writeRoots: [winPath(ws), winPath(join(work, 'not-there'))] } })
    expect(r.setupError).toMatchObject({ name: 'SetupError', step: 'acl', errnoCode: 'ENOENT' })
    expect(r.journalsAfter).toEqual([]) // the first root's grant was undone and the journal removed
  }, 60_000)

  it('TEMP and TMP point at the sandbox temp dir (a write root): the user\'s own is not writable at low integrity', async () => {
    const r = await run(['env', 'TEMP'], { env: [...env, 'TEMP=C:\\users\\somebody\\Temp'] })
    expect(json(r).value).toBe(winPath(ws))
  }, 60_000)

  // In *a* job: that it is cordon's (no breakaway, kill-on-close) is what the breakaway and tree tests show.
  it('runs the command inside a job object', async () => {
    const r = await run(['job'])
    expect(r.setupError).toBeNull()
    expect(r.setup?.platform.os).toBe('win32')
    expect(r.setup?.mechanisms).toEqual(expect.arrayContaining(['restricted-token', 'acl', 'job']))
    expect(json(r).inJob).toBe(true)
    expect(r.exitCode).toBe(0)
  }, 60_000)

  itWhere(realWindows('does not report job limits back (measured: QueryInformationJobObject succeeds and returns every limit as 0)'), 'the job is kill-on-close, without breakaway, with the planned limits', async () => {
    const r = await run(['job'], { policy: { limits: { nproc: 7, as: 512 * 1024 * 1024 } } })
    const j = json(r)
    const flags = j.flags as number
    expect(flags & 0x2000, 'JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE').toBe(0x2000)
    expect(flags & 0x800, 'JOB_OBJECT_LIMIT_BREAKAWAY_OK must be off').toBe(0)
    expect(flags & 0x1000, 'JOB_OBJECT_LIMIT_SILENT_BREAKAWAY_OK must be off').toBe(0)
    expect(flags & 0x8, 'JOB_OBJECT_LIMIT_ACTIVE_PROCESS').toBe(0x8)
    expect(j.activeProcesses).toBe(7)
    expect(j.memory).toBe(512 * 1024 * 1024)
  }, 60_000)

  it('passes every argument through unchanged (CommandLineToArgvW in the command)', async () => {
    const args = ['plain', 'two words', '', 'tab\there', 'quote"inside', 'trailing\\', 'back\\\\"quote', '\\\\server\\share\\', 'ünïcødé ✓', '"', '\\']
    const r = await run(['args', ...args])
    expect(json(r).args).toEqual(args)
  }, 60_000)

  it('reports the exit code, including one above 2^31 (an NTSTATUS)', async () => {
    expect((await run(['exit', '3'])).exitCode).toBe(3)
    expect((await run(['exit', '0xC0000005'])).exitCode).toBe(0xc0000005)
  }, 60_000)

  it('gives the command its stdin and keeps stdout and stderr apart', async () => {
    const r = await run(['cat'], { input: 'hello through the sandbox' })
    expect(r.stdout).toBe('hello through the sandbox')
    expect(r.stderr).toBe('err')
  }, 60_000)

  it('CREATE_BREAKAWAY_FROM_JOB is refused: the command cannot leave the job (Wine implements this check)', async () => {
    // Control: run by Node directly, in libuv's job (which allows breakaway), the same probe does break away.
    expect(await direct(['breakaway', winPath(probe), 'sleep'])).toEqual({ brokeAway: true, error: 0 })
    expect(json(await run(['breakaway', winPath(probe), 'sleep']))).toEqual({ brokeAway: false, error: 5 })
  }, 60_000)

  it('the command does not get the launcher\'s plan/stop and status pipes (PROC_THREAD_ATTRIBUTE_HANDLE_LIST)', async () => {
    // The launcher reports its pipes' handle values; later runs check from inside that no such handle exists there.
    const control = await run(['handle', 'stdout'])
    expect(json(control).valid).toBe(true) // the check sees a handle the command does have
    const first = await run(['exit', '0'])
    const handles = first.setup?.platform.launcher?.pipes ?? []
    expect(handles).toHaveLength(2)
    for (const h of handles) {
      const r = await run(['handle', String(h)])
      // Not a handle here: an error, or, under STRICT_HANDLE_CHECKS on Windows, the process ends with STATUS_INVALID_HANDLE.
      if (r.exitCode === 0) expect(json(r).valid).toBe(false)
      else expect(r.exitCode).toBe(0xc0000008)
    }
  }, 60_000)

  it('a program not on the command\'s PATH is a SetupError at execve (ENOENT), and nothing ran', async () => {
    const r = await runDriver<RunResult>(work, { op: 'run', stage: winPath(stage), policy: policy(), argv: ['no-such-program-here'], env })
    expect(r.setupError?.name).toBe('SetupError')
    expect(r.setupError?.step).toBe('execve')
    expect(r.setupError?.errnoCode).toBe('ENOENT')
  }, 60_000)

  it('a batch file is refused (cmd.exe re-parses its arguments: CVE-2024-27980)', async () => {
    const bat = join(ws, 'x.cmd')
    writeFileSync(bat, '@echo hi\r\n')
    const r = await runDriver<RunResult>(work, { op: 'run', stage: winPath(stage), policy: policy(), argv: [winPath(bat)], env })
    expect(r.setupError?.name).toBe('UnsupportedError')
  }, 60_000)

  it('stop() ends the whole tree: a grandchild dies with the job, and the ACLs are restored', async () => {
    const pidFile = join(work, 'gc-stop.pid')
    const r = await run(['spawn', winPath(pidFile), winPath(probe), 'sleep'], { pidFile: winPath(pidFile), stop: 'stop' })
    expect(r.setupError).toBeNull()
    expect(r.grandchildAliveBefore).toBe(true) // the check can see a live process
    expect(r.grandchildAlive).toBe(false)
    expect(r.signal).toBe('SIGKILL')
    expect(r.journalsDuring.length).toBe(1) // written before any ACL changed
    expect(r.journalsAfter).toEqual([]) // restored, then removed
  }, 60_000)

  it('the launcher killed outright (cordon died): kill-on-close ends the tree, and the next launch sweeps the journal it left', async () => {
    const pidFile = join(work, 'gc-kill.pid')
    const r = await run(['spawn', winPath(pidFile), winPath(probe), 'sleep'], { pidFile: winPath(pidFile), stop: 'kill-launcher' })
    expect(r.setupError).toBeNull()
    expect(r.grandchildAliveBefore).toBe(true)
    expect(r.grandchildAlive).toBe(false)
    expect(r.journalsAfter.length).toBe(1) // nobody restored: the journal says what to undo
    const next = await run(['exit', '0'])
    expect(next.journalsAfter).toEqual([])
  }, 60_000)

  it('the command exiting ends what it left running in the job', async () => {
    const pidFile = join(work, 'gc-exit.pid')
    const r = await run(['leave', winPath(pidFile), winPath(probe), 'sleep'], { pidFile: winPath(pidFile) })
    expect(json(r).spawned).toBe(true)
    expect(r.exitCode).toBe(0)
    expect(r.grandchildAlive).toBe(false)
  }, 60_000)

  // ---- enforced only on real Windows (measured under Wine: see each reason) ----

  itWhere(realWindows('does not enforce restricted tokens or ACLs (measured: creating .git\\config under the deny ACE succeeds)'), 'a protected path is not writable', async () => {
    const r = await run(['write', winPath(join(ws, '.git', 'config'))])
    expect(json(r)).toEqual({ write: false, error: 5 })
    expect(await direct(['write', winPath(join(ws, '.git', 'config'))])).toEqual({ write: true, error: 0 })
  }, 60_000)

  itWhere(realWindows('does not enforce restricted tokens (measured: a write outside the write roots succeeds)'), 'a path outside the write roots is not writable; one inside is', async () => {
    const outside = tempDir('cordon-win32-outside-')
    expect(json(await run(['write', winPath(join(outside, 'f'))]))).toEqual({ write: false, error: 5 })
    expect(await direct(['write', winPath(join(outside, 'f'))])).toEqual({ write: true, error: 0 })
    expect(json(await run(['write', winPath(join(ws, 'f'))]))).toEqual({ write: true, error: 0 })
  }, 60_000)

  itWhere(realWindows('does not enforce integrity levels or restricted tokens (measured: the command\'s token reports integrity 0x3000, high, and IsTokenRestricted false after the launcher made it low and write-restricted)'), 'the command runs at low integrity under a restricted token', async () => {
    expect(json(await run(['integrity']))).toEqual({ integrity: 0x1000, restricted: true })
    expect(await direct(['integrity'])).toMatchObject({ restricted: false })
  }, 60_000)

  itWhere(realWindows('does not enforce job memory limits (measured: committing 256 MB under a 64 MB job limit succeeds)'), 'the job memory limit stops an allocation past it', async () => {
    const r = await run(['alloc', '256'], { policy: { limits: { as: 64 * 1024 * 1024 } } })
    expect(json(r).allocated).toBe(false)
    expect((await direct(['alloc', '256'])).allocated).toBe(true)
  }, 60_000)

  itWhere(realWindows('does not enforce the job active-process limit (measured: 4 processes start under a limit of 2)'), 'the active-process limit stops a process past it', async () => {
    const r = await run(['procs', '4', winPath(probe), 'sleep'], { policy: { limits: { nproc: 2 } } })
    expect(json(r).started).toBe(1)
    expect((await direct(['procs', '4', winPath(probe), 'sleep'])).started).toBe(4)
  }, 60_000)

  itWhere(realWindows('does not enforce mandatory labels (measured: reading a no-read-up file succeeds)'), 'a deny-read file is not readable at low integrity', async () => {
    const secret = join(work, 'secret.txt')
    writeFileSync(secret, 'x')
    const r = await run(['read', winPath(secret)], { policy: { denyRead: [winPath(secret)] } })
    expect(json(r)).toEqual({ read: false, error: 5 })
    expect(await direct(['read', winPath(secret)])).toEqual({ read: true, error: 0 })
  }, 60_000)
})
