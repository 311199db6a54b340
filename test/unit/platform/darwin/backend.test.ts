/**
 * The macOS backend constructed directly on Linux: report and prepare from
 * a real resolved profile, and start() end to end through the macOS
 * launcher built against the libsandbox double (test/helpers/darwin-double.ts)
 * — the generated profile reaches sandbox_init, the command's output and
 * exit come back, a sandbox_init failure is a SetupError and nothing runs.
 * Seatbelt's own enforcement is not shown here: not yet run on macOS.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { LoadError, PolicyError, SetupError, UnsupportedError } from '../../../../src/errors.js'
import type { PlanRequest, StartRequest } from '../../../../src/platform/backend.js'
import { darwinBackend } from '../../../../src/platform/darwin/index.js'
import { loadProfile } from '../../../../src/profile/profiles.js'
import { resolvePolicy } from '../../../../src/profile/resolve.js'
import type { ProfileInput } from '../../../../src/profile/schema.js'
import { buildDarwinDouble, type DarwinDouble } from '../../../helpers/darwin-double.js'
import { host, itWhere } from '../../../helpers/requirements.js'
import { checkProfile } from '../../../helpers/sbpl-check.js'
import { removeTempDirs, tempDir } from '../../../helpers/temp.js'

const noCompiler = host().compiler
let double: DarwinDouble
beforeAll(() => {
  if (!noCompiler) double = buildDarwinDouble(tempDir('cordon-darwin-backend-'))
})
beforeEach(() => double?.reset())
afterAll(removeTempDirs)

function request(profile: string | ProfileInput = 'workspace-write', mode: PlanRequest['mode'] = 'auto'): PlanRequest {
  const cwd = tempDir('cordon-darwin-cwd-')
  const policy = resolvePolicy({ profile: loadProfile(profile), profileName: typeof profile === 'string' ? profile : 'custom', cwd, tmpdir: tempDir('cordon-darwin-tmp-'), baseEnv: { PATH: '/usr/bin:/bin' }, cache: new Map() })
  return { policy, mode, explicit: new Set() }
}

const io = (argv: string[], over: Partial<StartRequest> = {}): StartRequest => ({ argv, env: ['PATH=/usr/bin:/bin'], compat: 'best-effort', stdin: 'ignore', stdout: 'pipe', stderr: 'pipe', ...over })

describe('darwin backend: report and prepare (on Linux)', () => {
  it('reports Seatbelt, what it enforces and what it does not, and how it was verified', () => {
    const e = darwinBackend().report(request())
    expect(e).toMatchObject({ mode: 'seatbelt', mechanisms: ['seatbelt'], status: 'full', network: 'off', missing: [] })
    expect(e.filesystem).toMatchObject({ confined: true, readAll: true, narrowed: [], privateDirs: [] })
    expect(e.filesystem.protected.some((p) => p.endsWith('/.git/hooks'))).toBe(true)
    expect(e.notes.join('\n')).toMatch(/no supervisor process on macOS yet/)
    expect(e.platform).toMatchObject({ os: 'darwin', seatbelt: true, verified: 'not yet run on macOS' })
    if (e.platform.os !== 'darwin') throw new Error('unreachable')
    expect(e.platform.denialTag).toMatch(/^cordon-[0-9a-f]{16}$/)
    expect(e.platform.profileBytes).toBeGreaterThan(1000)
    expect(e.notes.join('\n')).toMatch(/not yet run on macOS/)
    expect(e.notes.join('\n')).toContain(e.platform.denialTag!)
  })

  it('each report gets its own denial tag (a denial names its run)', () => {
    const b = darwinBackend()
    const tag = (x: ReturnType<typeof b.report>) => (x.platform.os === 'darwin' ? x.platform.denialTag : null)
    expect(tag(b.report(request()))).not.toBe(tag(b.report(request())))
  })

  it("the Linux modes by name are an UnsupportedError; 'auto' is Seatbelt", () => {
    expect(() => darwinBackend().report(request('workspace-write', 'landlock'))).toThrow(UnsupportedError)
    expect(() => darwinBackend().report(request('workspace-write', 'namespaces'))).toThrow(/use mode 'auto' on macOS/)
  })

  it('network off with a proxy port: only that port on localhost, said in the notes', () => {
    const e = darwinBackend({ proxyPort: 3128 }).report(request())
    expect(e.notes).toContain('network: only localhost:3128 (the proxy) is reachable')
    expect(() => darwinBackend({ proxyPort: 70000 }).report(request())).toThrow(PolicyError)
  })

  it('an unsandboxed profile: no profile, mode none; with denied reads: a PolicyError', () => {
    const e = darwinBackend().report(request({ filesystem: { write: ['/'], denySecrets: false }, network: 'on', unsandboxed: true }))
    expect(e).toMatchObject({ mode: 'none', status: 'none', mechanisms: [], platform: { os: 'darwin', seatbelt: false, denialTag: null } })
    expect(() => darwinBackend().report(request({ unsandboxed: true }))).toThrow(PolicyError)
  })

  it('a launcher named inside a write root is refused (the command could replace it)', () => {
    const req = request()
    const b = darwinBackend({ launcher: join(req.policy.cwd, 'cordon-launcher') })
    expect(() => b.prepare(req)).toThrow(LoadError)
  })

  it('doctor: Seatbelt through the launcher, flagged as not yet run on macOS', () => {
    const d = darwinBackend({ launcher: '/opt/cordon/cordon-launcher' }).doctor()
    expect(d).toMatchObject({ platform: 'darwin', modes: { seatbelt: true }, auto: { mode: 'seatbelt' } })
    expect(d.checks.find((c) => c.mechanism === 'launcher')?.detail).toBe('/opt/cordon/cordon-launcher')
    expect(d.checks.find((c) => c.mechanism === 'Seatbelt')).toMatchObject({ ok: true, warning: true, detail: expect.stringMatching(/not yet run on macOS/) })
  })

  it('a handle it did not make is refused', () => {
    const b = darwinBackend({ launcher: '/nonexistent/cordon-launcher' })
    expect(() => b.start({ enforcement: b.report(request()) }, io(['/bin/true']))).toThrow(TypeError)
  })
})

describe('darwin backend: start through the launcher built against a sandbox_init double (on Linux)', () => {
  itWhere(noCompiler, 'the generated profile reaches sandbox_init; output, exit code and the applied report come back', async () => {
    const b = darwinBackend({ launcher: double.launcher })
    const h = b.prepare(request())
    const run = b.start(h, io(['/bin/sh', '-c', 'echo out; echo err >&2; exit 3']))
    const applied = await run.started
    const end = await run.finished
    b.release(h)
    expect(end).toMatchObject({ exitCode: 3, signal: null, truncated: false })
    expect(end.stdout.toString()).toBe('out\n')
    expect(end.stderr.toString()).toBe('err\n')
    expect(applied?.platform).toMatchObject({ os: 'darwin', seatbelt: true })
    const profile = double.profile()!
    const planned = h.enforcement.platform
    if (planned.os !== 'darwin') throw new Error(`a ${planned.os} report from the darwin backend`)
    expect(() => checkProfile(profile)).not.toThrow()
    expect(profile).toContain(`(deny default (with message "${planned.denialTag}"))`)
    expect(Buffer.byteLength(profile)).toBe(planned.profileBytes)
  })

  it('a launcher that cannot be started: a SetupError at step launch, nothing runs', async () => {
    const b = darwinBackend({ launcher: '/nonexistent/cordon-launcher' })
    const run = b.start(b.prepare(request()), io(['/bin/true']))
    await expect(run.started).rejects.toMatchObject({ name: 'SetupError', step: 'launch', errnoCode: 'ENOENT' })
    await expect(run.finished).rejects.toThrow(/cannot start the macOS launcher/)
  })

  itWhere(noCompiler, 'input reaches the command on stdin; maxBuffer truncates', async () => {
    const b = darwinBackend({ launcher: double.launcher })
    const h = b.prepare(request())
    const end = await b.start(h, io(['/bin/cat'], { input: 'abcdef', maxBuffer: 4 })).finished
    expect(end.stdout.toString()).toBe('abcd')
    expect(end.truncated).toBe(true)
  })

  itWhere(noCompiler, 'sandbox_init failing: started and finished reject with a SetupError carrying its message; the command never runs', async () => {
    double.failWith('string literal too long')
    const b = darwinBackend({ launcher: double.launcher })
    const req = request()
    const marker = join(req.policy.cwd, 'ran')
    const run = b.start(b.prepare(req), io(['/bin/sh', '-c', `touch '${marker}'`]))
    await expect(run.started).rejects.toThrow(SetupError)
    const e = await run.finished.then(() => undefined, (x: unknown) => x)
    expect(e).toBeInstanceOf(SetupError)
    expect(e).toMatchObject({ step: 'seatbelt', syscall: 'sandbox_init', errnoCode: 'EPERM' })
    expect((e as Error).message).toContain('string literal too long')
    expect(existsSync(marker)).toBe(false)
  })

  itWhere(noCompiler, 'already sandboxed: a SetupError that says Seatbelt does not nest', async () => {
    double.markSandboxed()
    const b = darwinBackend({ launcher: double.launcher })
    const run = b.start(b.prepare(request()), io(['/bin/true']))
    await expect(run.finished).rejects.toThrow(/do not nest/)
  })

  itWhere(noCompiler, 'stop() ends the command (its process group)', async () => {
    const b = darwinBackend({ launcher: double.launcher })
    const run = b.start(b.prepare(request()), io(['/bin/sleep', '30']))
    await run.started
    run.stop()
    const end = await run.finished
    expect(end.signal).toBe('SIGKILL')
  })
})
