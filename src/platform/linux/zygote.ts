/**
 * The caller's side of the launcher's spawn server (native/linux/zygote.c).
 *
 * Node forks its whole process for every child_process.spawn; on a VM that
 * alone costs several milliseconds. So cordon spawns the launcher once per
 * caller (per launcher binary) as a zygote and asks it, over a unix socket,
 * to fork a fresh launcher per command. The zygote gets an empty
 * environment and dies with the caller; each command is supervised exactly
 * as before (the zygote's child *is* the launcher).
 *
 * Requests are synchronous: the reply (the child's pid) arrives once the
 * zygote has forked — well under Node's own spawn, which also blocks until
 * its child has exec'd. Exits arrive as "pid waitstatus" lines.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { closeSync } from 'node:fs'
import { constants } from 'node:os'
import type { Readable } from 'node:stream'
import { SetupError } from '../../errors.js'
import { loadNative } from '../../native/load.js'
import { errnoName } from './errno.js'

/** How long a request may wait for the zygote's reply before it counts as gone. */
const REPLY_TIMEOUT_MS = 10_000

export interface ChildExit {
  exitCode: number | null
  signal: NodeJS.Signals | null
}

/** What a sandboxed child gets as fds 0..4: stdin, stdout, stderr, plan, status. */
export type ChildFds = [number, number, number, number, number]

/** Run the launcher (`launcher`) or exec a wrapper such as bwrap (`exec`) in the child. */
export type ZygoteJob = { kind: 'launcher' } | { kind: 'exec'; file: string; args: readonly string[] }

const signalNames = new Map(Object.entries(constants.signals).map(([k, v]) => [v, k as NodeJS.Signals]))

function decodeWaitStatus(status: number): ChildExit {
  const sig = status & 0x7f
  if (sig === 0) return { exitCode: (status >> 8) & 0xff, signal: null }
  return { exitCode: null, signal: signalNames.get(sig) ?? null }
}

function request(fields: readonly string[]): Buffer {
  return Buffer.from(fields.map((f) => `${f}\0`).join(''))
}

class Zygote {
  private readonly waiters = new Map<number, (exit: ChildExit) => void>()
  private readonly events: Readable
  private readonly child: ChildProcess
  private buffered = ''
  dead = false

  constructor(
    launcher: string,
    private readonly socket: number,
    peer: number,
  ) {
    try {
      this.child = spawn(launcher, ['--zygote'], { stdio: ['ignore', 'ignore', 'ignore', peer, 'pipe'], env: {} })
    } finally {
      closeSync(peer)
    }
    if (this.child.pid === undefined) {
      closeSync(socket)
      this.child.on('error', () => {})
      throw new SetupError('launch', 'spawn', 0, 'EUNKNOWN', `could not start ${launcher} --zygote`)
    }
    this.child.on('error', () => this.shutdown())
    this.child.on('exit', () => this.shutdown())
    this.child.unref()
    this.events = this.child.stdio[4] as Readable
    this.events.setEncoding('utf8')
    this.events.on('data', (d: string) => this.onData(d))
    this.events.on('close', () => this.shutdown())
    this.events.on('error', () => this.shutdown())
    this.unrefEvents()
  }

  private unrefEvents(): void {
    ;(this.events as Readable & { unref?: () => void }).unref?.()
  }

  private onData(d: string): void {
    this.buffered += d
    for (let i = this.buffered.indexOf('\n'); i >= 0; i = this.buffered.indexOf('\n')) {
      const [pid, status] = this.buffered.slice(0, i).split(' ').map(Number)
      this.buffered = this.buffered.slice(i + 1)
      const waiter = pid === undefined ? undefined : this.waiters.get(pid)
      if (waiter && status !== undefined) {
        this.waiters.delete(pid!)
        waiter(decodeWaitStatus(status))
      }
    }
    if (this.waiters.size === 0) this.unrefEvents()
  }

  /** The zygote is gone: children it had are reported as lost (no status). */
  private shutdown(): void {
    if (this.dead) return
    this.dead = true
    try {
      closeSync(this.socket)
    } catch {
      /* already closed */
    }
    for (const waiter of this.waiters.values()) waiter({ exitCode: null, signal: null })
    this.waiters.clear()
  }

  private call(fields: readonly string[], fds: number[]): number {
    if (this.dead) throw new SetupError('launch', 'zygote', 0, 'ECONNRESET', 'the launcher zygote is gone')
    try {
      return loadNative().binding.zygoteCall(this.socket, request(fields), fds, REPLY_TIMEOUT_MS)
    } catch (e) {
      const err = e as { errno?: number; syscall?: string }
      this.child.kill('SIGKILL')
      this.shutdown()
      throw new SetupError('launch', err.syscall ?? 'zygote', err.errno ?? 0, errnoName(err.errno ?? 0), 'the launcher zygote did not answer')
    }
  }

  /** Fork one child; resolves `exited` with its wait status. */
  start(job: ZygoteJob, fds: ChildFds): { pid: number; exited: Promise<ChildExit> } {
    const umask = process.umask().toString(8)
    const fields = job.kind === 'launcher' ? ['L', umask] : ['X', umask, job.file, ...job.args]
    const pid = this.call(fields, fds)
    if (pid <= 0) throw new SetupError('launch', 'fork', -pid, errnoName(-pid), 'the launcher zygote could not fork')
    const exited = new Promise<ChildExit>((resolve) => this.waiters.set(pid, resolve))
    ;(this.events as Readable & { ref?: () => void }).ref?.()
    return { pid, exited }
  }

  /**
   * Signal a child (`group`: its whole process group) — only while the
   * zygote has not reaped it, so a reused pid is never hit.
   */
  kill(pid: number, signal: NodeJS.Signals, group: boolean): boolean {
    if (this.dead || !this.waiters.has(pid)) return false
    const n = constants.signals[signal]
    try {
      return this.call(['K', String(pid), String(n), group ? 'g' : 'p'], []) === 0
    } catch {
      return false
    }
  }
}

const zygotes = new Map<string, Zygote>()

/** The zygote for this launcher binary, started on first use (and again if it died). */
export function zygoteFor(launcher: string): Zygote {
  const existing = zygotes.get(launcher)
  if (existing && !existing.dead) return existing
  const [mine, peer] = loadNative().binding.seqpacketPair()
  const z = new Zygote(launcher, mine, peer)
  zygotes.set(launcher, z)
  return z
}

export type { Zygote }
