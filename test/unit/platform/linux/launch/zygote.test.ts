/**
 * The launcher zygote (native/linux/zygote.c, src/platform/linux/launch/zygote.ts):
 * every sandboxed command is forked from it, so what it hands a child, how it
 * lives and dies, and its request protocol are part of the confinement.
 */
import { spawn } from 'node:child_process'
import { chmodSync, mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createSandbox } from '../../../../../src/index.js'
import { loadNative } from '../../../../../src/native/load.js'
import { zygoteFor } from '../../../../../src/platform/linux/launch/zygote.js'
import { WIRE } from '../../../../../src/platform/linux/launch/wire.js'
import { dead, eventually } from '../../../../helpers/processes.js'
import { itWhere, unless } from '../../../../helpers/requirements.js'
import { removeTempDirs, tempDir } from '../../../../helpers/temp.js'

const dir = mkdtempSync(join(tmpdir(), 'cordon-zygote-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
afterAll(removeTempDirs)

/**
 * The environment of a separate caller: its own TMPDIR (world-writable, as
 * /tmp is), removed with this file, for a caller that is killed or drops to
 * another uid before it could remove its sandbox's temp dir.
 */
function callerEnv(): NodeJS.ProcessEnv {
  const tmp = tempDir('zygote-caller-')
  chmodSync(tmp, 0o1777)
  return { ...process.env, TMPDIR: tmp }
}
const options = { cwd: dir, mode: 'landlock', compat: 'best-effort' } as const

const ppidOf = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ')[1])

/**
 * A run that prints `word` and stays until its stdin closes, so its pid (and
 * its parent in /proc) can be read before it exits — a command that ended
 * already has no /proc entry (a flake on a busy machine).
 */
const holding = (sb: ReturnType<typeof createSandbox>, word: string) => sb.spawn('sh', ['-c', `echo ${word}; read _ || true`], { stdin: 'pipe' })

/** Start a long command (confined and running) and return it with the pid of the zygote that forked it. */
async function startSleeper(sb: ReturnType<typeof createSandbox>) {
  const p = sb.spawn('sleep', ['30'])
  await p.enforcement
  return { p, zygote: ppidOf(p.pid!) }
}

describe('the launcher zygote', () => {
  it('runs with an empty environment, cwd / and no capabilities kept for the command', async () => {
    const sb = createSandbox(options)
    const { p, zygote } = await startSleeper(sb)
    expect(readFileSync(`/proc/${zygote}/environ`, 'utf8')).toBe('')
    expect(readlinkSync(`/proc/${zygote}/cwd`)).toBe('/')
    expect(readlinkSync(`/proc/${zygote}/exe`)).toMatch(/cordon-launcher$/)
    p.kill('SIGKILL')
    await p
    sb.close()
  })

  it('keeps concurrent runs apart: each gets its own output and exit status', async () => {
    const sb = createSandbox(options)
    const runs = Array.from({ length: 16 }, (_, i) => sb.run(['sh', '-c', `echo out${i}; echo err${i} >&2; exit ${i}`]))
    const results = await Promise.all(runs)
    sb.close()
    results.forEach((r, i) => expect(r).toMatchObject({ exitCode: i, stdout: `out${i}\n`, stderr: `err${i}\n` }))
  })

  it("applies the caller's current umask to each command", async () => {
    const sb = createSandbox(options)
    const old = process.umask(0o027)
    try {
      expect((await sb.run(['sh', '-c', 'umask'])).stdout.trim()).toBe('0027')
    } finally {
      process.umask(old)
    }
    expect((await sb.run(['sh', '-c', 'umask'])).stdout.trim()).toBe(old.toString(8).padStart(4, '0'))
    sb.close()
  })

  it('the command holds exactly stdin, stdout and stderr (no zygote socket, no plan or status pipe)', async () => {
    const sb = createSandbox(options)
    const r = await sb.run(['sh', '-c', 'ls /proc/$$/fd'])
    sb.close()
    expect(r.stdout.trim().split('\n').map(Number).sort()).toEqual([0, 1, 2])
  })

  it('a killed zygote ends its runs visibly (supervisors tear down) and the next run starts a new one', async () => {
    const sb = createSandbox(options)
    const { p, zygote } = await startSleeper(sb)
    process.kill(zygote, 'SIGKILL')
    const r = await p
    expect(r.signal).toBe('SIGKILL') // the supervisor's own record: its command was killed in tear-down
    const next = holding(sb, 'again')
    expect(ppidOf(next.pid!)).not.toBe(zygote)
    next.stdin!.end()
    expect((await next).stdout).toBe('again\n')
    sb.close()
  })

  it('dies with its caller, and takes the running commands with it', async () => {
    const script = `
      import { createSandbox } from ${JSON.stringify(new URL('../../../../../dist/index.js', import.meta.url).href)}
      import { readFileSync } from 'node:fs'
      const sb = createSandbox(${JSON.stringify(options)})
      const p = sb.spawn('sh', ['-c', 'echo $$; sleep 30'])
      p.stdout.once('data', (d) => {
        const zygote = readFileSync('/proc/' + p.pid + '/stat', 'utf8').replace(/^.*\\) /, '').split(' ')[1]
        console.log(zygote, String(d).trim())
      })`
    const caller = spawn(process.execPath, ['--input-type=module', '-e', script], { env: callerEnv(), stdio: ['ignore', 'pipe', 'inherit'] })
    const line = await new Promise<string>((resolve) => caller.stdout.once('data', (d: Buffer) => resolve(d.toString())))
    const [zygote, command] = line.trim().split(' ').map(Number)
    expect(dead(zygote!)).toBe(false)
    caller.kill('SIGKILL')
    expect(await eventually(() => dead(zygote!))).toBe(true)
    expect(await eventually(() => dead(command!))).toBe(true)
  })
})

describe('the zygote request protocol', () => {
  const { binding, launcherPath } = loadNative()
  const raw = (z: object) => z as unknown as { socket: number }
  const req = (...fields: string[]) => Buffer.from(fields.map((f) => `${f}\x00`).join(''))

  it('refuses a malformed request with EINVAL and an unknown pid with ESRCH, and keeps serving', async () => {
    const z = zygoteFor(launcherPath)
    const { socket } = raw(z)
    expect(binding.zygoteCall(socket, req('Q'), [], 5000)).toBe(-22)
    expect(binding.zygoteCall(socket, req('L', '022'), [], 5000)).toBe(-22) // no cgroup count, no descriptors
    // The cgroup count: a number up to the wire's maximum, of descriptors
    // after the child's own five (never taken out of them).
    const five = [0, 1, 2, 0, 1]
    expect(binding.zygoteCall(socket, req('L', '022', 'x'), five, 5000)).toBe(-22)
    expect(binding.zygoteCall(socket, req('L', '022', String(WIRE.fd.maxCgroups + 1)), [...five, ...Array<number>(WIRE.fd.maxCgroups + 1).fill(0)], 5000)).toBe(-22)
    expect(binding.zygoteCall(socket, req('L', '022', '2'), five, 5000)).toBe(-22)
    expect(binding.zygoteCall(socket, req('X', '022', '1', '/bin/true'), five, 5000)).toBe(-22)
    expect(binding.zygoteCall(socket, req('K', String(process.pid), '9', 'g'), [], 5000)).toBe(-3) // not its child
    const sb = createSandbox(options)
    expect((await sb.run(['sh', '-c', 'echo still'])).stdout).toBe('still\n')
    sb.close()
  })

  it('signals only children it has not reaped (a finished run cannot be "killed" into a reused pid)', async () => {
    const sb = createSandbox(options)
    const p = sb.spawn('/bin/true')
    await p
    expect(() => p.kill('SIGKILL')).not.toThrow()
    const z = zygoteFor(launcherPath)
    expect(binding.zygoteCall(raw(z).socket, req('K', String(p.pid), '9', 'p'), [], 5000)).toBe(-3)
    sb.close()
  })
})

/** Run a Node ES module (source text) as a separate caller; resolves with its stdout. */
function caller(source: string, opts: { detached?: boolean; onSpawn?: (pid: number) => void; onStdout?: (text: string) => void } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const dist = JSON.stringify(new URL('../../../../../dist/index.js', import.meta.url).href)
  const child = spawn(process.execPath, ['--input-type=module', '-e', `import { createSandbox } from ${dist}\n${source}`], {
    env: callerEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: opts.detached ?? false,
  })
  opts.onSpawn?.(child.pid!)
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString()
    opts.onStdout?.(stdout)
  })
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })))
}

describe('the zygote against a careless or hostile caller environment', () => {
  const opts = JSON.stringify(options)

  it('a caller that closed fd 0 before its first run: the command inherits /dev/null, never a cordon socket', async () => {
    const r = await caller(`
      import { closeSync, readlinkSync } from 'node:fs'
      closeSync(0)
      const sb = createSandbox(${opts})
      const res = await sb.run(['readlink', '/proc/self/fd/0'], { stdin: 'inherit' })
      console.log(JSON.stringify({ in: res.stdout.trim(), mine: readlinkSync('/proc/self/fd/0') }))
      sb.close()`)
    const out = JSON.parse(r.stdout) as { in: string; mine: string }
    expect(out.in).toBe('/dev/null')
    expect(out.mine).toBe('/dev/null')
  })

  it('a request sent by any other process than the caller stops the zygote (the socket leaked); the next run gets a new one', async () => {
    const sb = createSandbox(options)
    const { p, zygote } = await startSleeper(sb)
    const z = zygoteFor(loadNative().launcherPath) as unknown as { socket: number }
    // Another process holding the socket sends a request for an unconfined shell.
    const py = 'import socket; s = socket.socket(fileno=3); s.sendmsg([b"X\\x00022\\x00/bin/sh\\x00-c\\x00id\\x00"])'
    const intruder = spawn('python3', ['-c', py], { stdio: ['ignore', 'ignore', 'inherit', z.socket] })
    await new Promise((r) => intruder.on('close', r))
    expect(await eventually(() => dead(zygote))).toBe(true)
    expect((await p).signal).toBe('SIGKILL') // its run was torn down, visibly
    const next = holding(sb, 'fresh')
    expect(ppidOf(next.pid!)).not.toBe(zygote)
    next.stdin!.end()
    expect((await next).stdout).toBe('fresh\n')
    sb.close()
  })

  itWhere(unless(process.getuid?.() === 0, 'dropping to another uid needs a root test process'), 'a root caller that drops to another uid: later commands run as that uid (a new zygote), not as root', async () => {
    const r = await caller(`
      const sb = createSandbox({ cwd: '/', profile: 'read-only', mode: 'landlock', compat: 'best-effort' })
      const before = (await sb.run(['id', '-u'])).stdout.trim()
      process.setgroups([]); process.setgid(65534); process.setuid(65534)
      const after = (await sb.run(['id', '-u'])).stdout.trim()
      console.log(before, after)`)
    expect(r.stdout.trim()).toBe('0 65534')
  })

  it("a caller's Ctrl-C (SIGINT to its process group) does not reach the zygote: the run finishes", async () => {
    let pid = 0
    let markStarted!: () => void
    const started = new Promise<void>((r) => (markStarted = r))
    const done = caller(
      `
      process.on('SIGINT', () => console.error('caller got SIGINT'))
      const sb = createSandbox(${opts})
      const p = sb.run(['sh', '-c', 'sleep 1; echo finished'])
      await p.enforcement
      console.log('started')
      const r = await p
      console.log(JSON.stringify({ code: r.exitCode, signal: r.signal, out: r.stdout.trim() }))
      sb.close()`,
      { detached: true, onSpawn: (p) => (pid = p), onStdout: (out) => out.includes('started') && markStarted() },
    )
    await started // the caller's handler is installed and its command is running
    process.kill(-pid, 'SIGINT')
    const r = await done
    expect(r.stderr).toContain('caller got SIGINT')
    expect(JSON.parse(r.stdout.trim().split('\n').pop()!)).toEqual({ code: 0, signal: null, out: 'finished' })
  })

  it('exits piling up while the caller is busy never stall the zygote: the next request is answered at once', async () => {
    const sb = createSandbox(options)
    const { p, zygote } = await startSleeper(sb)
    const runs = Array.from({ length: 300 }, () => sb.run(['true']))
    const blockUntil = Date.now() + 1500
    while (Date.now() < blockUntil) {
      /* the caller's event loop is busy: no exit line is read */
    }
    // Before the fix the zygote blocked writing exit lines, this request timed
    // out (ETIMEDOUT) and the zygote was replaced, tearing down every run.
    const next = holding(sb, 'ok')
    expect(ppidOf(next.pid!)).toBe(zygote)
    next.stdin!.end()
    expect((await next).stdout).toBe('ok\n')
    p.kill('SIGKILL')
    await p
    const results = await Promise.all(runs)
    expect(results.every((r) => r.exitCode === 0)).toBe(true)
    sb.close()
  }, 60_000)

  it('a request too large for one message is refused with E2BIG and the zygote keeps serving', async () => {
    const z = zygoteFor(loadNative().launcherPath)
    const huge = Array.from({ length: 20_000 }, (_, i) => `--arg-${i}-${'x'.repeat(10)}`)
    expect(() => z.start({ kind: 'exec', file: '/bin/true', args: huge }, [0, 1, 2, 0, 1])).toThrow(/E2BIG/)
    const sb = createSandbox(options)
    expect((await sb.run(['sh', '-c', 'echo alive'])).stdout).toBe('alive\n')
    sb.close()
  })
})
