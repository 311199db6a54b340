/**
 * The command's own terminal (native/linux/pty.c): the addon makes a PTY
 * and reads and sets terminal sizes; the launcher, asked by the plan's
 * `ctty`, makes the PTY the command's controlling terminal in a session of
 * its own — and never takes a terminal that already is some session's.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { readFileSync, readlinkSync } from 'node:fs'
import type { Readable, Writable } from 'node:stream'
import { afterEach, describe, expect, inject, it } from 'vitest'
import { loadNative } from '../../src/native/load.js'
import { Pty } from '../../src/platform/linux/launch/pty.js'

const { binding, launcherPath } = loadNative()
const probe = `${inject('cordonProbeDir')}/probe-terminal`

const opened: number[] = []
afterEach(() => {
  for (const fd of opened.splice(0)) binding.close(fd)
})
function openPty(like = -1): [number, number] {
  const fds = binding.openPty(like)
  opened.push(...fds)
  return fds
}

/** `stty ARGS` run on `fd` (stty works on its stdin); its output. */
function stty(fd: number, ...args: string[]): string {
  const r = spawnSync('stty', args, { stdio: [fd, 'pipe', 'pipe'], encoding: 'utf8' })
  expect(r.status, r.stderr).toBe(0)
  return r.stdout
}

const flags = (fd: number) => Number.parseInt(/flags:\s+(\d+)/.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))![1]!, 8)
const O_CLOEXEC = 0o2000000
const O_NONBLOCK = 0o4000

describe('openPty', () => {
  it('gives a master and a slave above fd 2, both close-on-exec, both terminals', () => {
    const [master, slave] = openPty()
    for (const fd of [master, slave]) {
      expect(fd).toBeGreaterThan(2)
      expect(flags(fd) & O_CLOEXEC).toBe(O_CLOEXEC)
      expect(binding.terminal(fd)).not.toBeNull()
    }
    expect(flags(master) & O_NONBLOCK).toBe(O_NONBLOCK) // cordon's end never stalls the event loop
    expect(flags(slave) & O_NONBLOCK).toBe(0) // the command's end is an ordinary terminal
    expect(readFileSync(`/proc/self/fdinfo/${master}`, 'utf8')).toMatch(/^tty-index:\s+\d+$/m) // /dev/ptmx
    expect(readlinkSync(`/proc/self/fd/${slave}`)).toMatch(/^\/dev\/pts\/\d+$/)
  })

  it('copies the line settings and window size of `like`', () => {
    const [, slaveA] = openPty()
    stty(slaveA, '-echo', 'rows', '33', 'cols', '77', 'intr', '^K')
    const [, slaveB] = openPty(slaveA)
    const modes = stty(slaveB, '-a')
    expect(modes).toContain('rows 33; columns 77')
    expect(modes).toMatch(/(^|\s)-echo(\s|$)/m)
    expect(modes).toContain('intr = ^K')
    const [, plain] = openPty()
    expect(stty(plain, '-a')).toMatch(/(^|\s)echo(\s|$)/m) // without `like`: the kernel's defaults
  })

  it('refuses a `like` that is no terminal, naming the call', () => {
    const [r, w] = binding.pipe()
    opened.push(r, w)
    expect(() => binding.openPty(r)).toThrow(expect.objectContaining({ code: 'ENOTTY', syscall: 'tcgetattr', step: 'terminal' }))
  })
})

describe('terminal and setTerminalSize', () => {
  it('report null for what is no terminal', () => {
    const [r, w] = binding.pipe()
    opened.push(r, w)
    expect(binding.terminal(r)).toBeNull()
    expect(binding.terminal(9999)).toBeNull()
  })

  it('set the size on the master and read it on the slave; a terminal that is not ours counts as foreground', () => {
    const [master, slave] = openPty()
    binding.setTerminalSize(master, 24, 132)
    expect(binding.terminal(slave)).toEqual({ rows: 24, cols: 132, foreground: true })
    expect(stty(slave, 'size').trim()).toBe('24 132')
  })

  it('refuse bad arguments with a TypeError, and a size on a non-terminal with ENOTTY', () => {
    const loose = binding as unknown as Record<string, (...a: unknown[]) => unknown>
    expect(() => loose.openPty!('0')).toThrow(TypeError)
    expect(() => loose.terminal!()).toThrow(TypeError)
    expect(() => loose.setTerminalSize!(3, 1)).toThrow(TypeError)
    const [r, w] = binding.pipe()
    opened.push(r, w)
    expect(() => binding.setTerminalSize(r, 1, 1)).toThrow(expect.objectContaining({ code: 'ENOTTY' }))
    expect(() => binding.setTerminalSize(r, 70000, 1)).toThrow(expect.objectContaining({ code: 'EINVAL' }))
  })
})

interface Launch {
  stdout: string
  status: Record<string, unknown>[]
}

/** The launcher on `stdin` with a plan (on fd 3); status records from fd 4; the command's stdout. */
async function launch(stdin: number | 'ignore', extra: Record<string, unknown>, argv = [probe, 'state']): Promise<Launch> {
  const plan = { v: 1, argv, env: ['PATH=/usr/bin:/bin'], cwd: '/', compat: 'best-effort', rlimits: [], landlock: null, seccomp: null, ...extra }
  const child = spawn(launcherPath, ['--plan-fd', '3', '--status-fd', '4'], { env: {}, stdio: [stdin, 'pipe', 'inherit', 'pipe', 'pipe'] })
  const text = (s: Readable) => new Promise<string>((resolve) => {
    let t = ''
    s.on('data', (d: Buffer) => (t += d.toString())).on('close', () => resolve(t))
  })
  const planPipe = child.stdio[3] as Writable
  planPipe.on('error', () => {})
  planPipe.end(JSON.stringify(plan))
  const [stdout, status] = await Promise.all([text(child.stdout!), text(child.stdio[4] as Readable), new Promise((r) => child.on('close', r))])
  return { stdout, status: status.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) }
}

describe('launcher: ctty', () => {
  it('makes the PTY on fd 0 the command’s controlling terminal, in a session the command leads, as its foreground group', async () => {
    const [master, slave] = openPty()
    binding.setTerminalSize(master, 30, 90)
    const r = await launch(slave, { ctty: 0 })
    expect(r.status[0]).toMatchObject({ ok: true })
    expect(r.stdout.trim()).toBe('tty=0 echo=1 size=30x90 sid=1 fg=1')
  })

  it('without ctty, the same PTY is only a descriptor: the command leads no session and has no controlling terminal', async () => {
    const [, slave] = openPty()
    const r = await launch(slave, {})
    expect(r.stdout.trim()).toMatch(/^tty=0 echo=1 size=0x0 sid=0 fg=0$/)
  })

  it('refuses a terminal that is already another session’s controlling terminal (EPERM), never taking it', async () => {
    const [, slave] = openPty()
    let holder: ChildProcess | undefined
    try {
      // setsid -c: a new session with fd 0 as its controlling terminal, like the caller's shell.
      holder = spawn('setsid', ['-c', 'sleep', '30'], { stdio: [slave, 'ignore', 'ignore'] })
      await new Promise((r) => setTimeout(r, 300))
      const r = await launch(slave, { ctty: 0 })
      expect(r.status[0]).toMatchObject({ ok: false, step: 'terminal', syscall: 'ioctl(TIOCSCTTY)', errno: 1 })
      expect(r.stdout).toBe('')
    } finally {
      holder?.kill('SIGKILL')
    }
  })

  it('refuses ctty on a descriptor that is no terminal (ENOTTY), and a ctty outside 0–2 in the plan', async () => {
    const none = await launch('ignore', { ctty: 0 })
    expect(none.status[0]).toMatchObject({ ok: false, step: 'terminal', syscall: 'ioctl(TIOCSCTTY)', errno: 25 })
    const bad = await launch('ignore', { ctty: 3 })
    expect(bad.status[0]).toMatchObject({ ok: false, step: 'plan', detail: 'ctty' })
  })
})

describe('Pty (src/platform/linux/launch/pty.ts over the addon)', () => {
  it('delivers every byte the command wrote, then ends once no process holds the slave', async () => {
    const pty = Pty.open()
    const chunks: Buffer[] = []
    const child = spawn('sh', ['-c', 'head -c 100000 /dev/zero | tr "\\0" y; printf END'], { stdio: [pty.slave, pty.slave, 'ignore'] })
    pty.releaseSlave()
    pty.read((c) => chunks.push(c))
    await pty.ended
    const text = Buffer.concat(chunks).toString()
    expect(text.length).toBe(100_003)
    expect(text.endsWith('END')).toBe(true)
    expect(await new Promise((r) => child.on('close', r))).toBe(0)
  })

  it('queues what the command does not read yet instead of blocking, and delivers it whole', async () => {
    const pty = Pty.open()
    stty(pty.slave, 'raw', '-echo') // bytes through unchanged, nothing echoed back
    const size = 300_000 // far more than a PTY's input buffer holds
    const before = Date.now()
    pty.write(Buffer.alloc(size, 'a'))
    expect(Date.now() - before).toBeLessThan(1000) // returned without waiting for a reader
    const reader = spawn('head', ['-c', String(size)], { stdio: [pty.slave, 'pipe', 'ignore'] })
    let got = 0
    reader.stdout!.on('data', (d: Buffer) => (got += d.length))
    pty.read(() => {})
    await new Promise((r) => reader.on('close', r))
    expect(got).toBe(size)
    pty.close()
    await pty.ended
  })
})
