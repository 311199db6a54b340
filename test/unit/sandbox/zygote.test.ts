/**
 * The launcher zygote (native/linux/zygote.c, src/platform/linux/zygote.ts):
 * every sandboxed command is forked from it, so what it hands a child, how it
 * lives and dies, and its request protocol are part of the confinement.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createSandbox } from '../../../src/index.js'
import { loadNative } from '../../../src/native/load.js'
import { zygoteFor } from '../../../src/platform/linux/zygote.js'

const dir = mkdtempSync(join(tmpdir(), 'cordon-zygote-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const options = { cwd: dir, mode: 'landlock', compat: 'best-effort' } as const

const ppidOf = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ')[1])

function gone(pid: number): boolean {
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return true
  }
}

async function eventually(check: () => boolean, ms = 5000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) if (check()) return true
  return check()
}

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
    const next = sb.spawn('sh', ['-c', 'echo again'])
    expect(ppidOf(next.pid!)).not.toBe(zygote)
    expect((await next).stdout).toBe('again\n')
    sb.close()
  })

  it('dies with its caller, and takes the running commands with it', async () => {
    const script = `
      import { createSandbox } from ${JSON.stringify(new URL('../../../dist/index.js', import.meta.url).href)}
      import { readFileSync } from 'node:fs'
      const sb = createSandbox(${JSON.stringify(options)})
      const p = sb.spawn('sh', ['-c', 'echo $$; sleep 30'])
      p.stdout.once('data', (d) => {
        const zygote = readFileSync('/proc/' + p.pid + '/stat', 'utf8').replace(/^.*\\) /, '').split(' ')[1]
        console.log(zygote, String(d).trim())
      })`
    const caller = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
    const line = await new Promise<string>((resolve) => caller.stdout.once('data', (d: Buffer) => resolve(d.toString())))
    const [zygote, command] = line.trim().split(' ').map(Number)
    expect(gone(zygote!)).toBe(false)
    caller.kill('SIGKILL')
    expect(await eventually(() => gone(zygote!))).toBe(true)
    expect(await eventually(() => gone(command!))).toBe(true)
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
    expect(binding.zygoteCall(socket, req('L', '022'), [], 5000)).toBe(-22) // no descriptors
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
