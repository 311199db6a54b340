/**
 * The caller's side of the launcher's spawn server (native/linux/zygote.c).
 *
 * Node forks its whole process for every child_process.spawn; on a VM that
 * alone costs several milliseconds. So cordon starts the launcher once per
 * caller (per launcher binary and identity; with posix_spawn from the addon,
 * which does not copy Node's page tables either) as a zygote and asks it,
 * over a unix socket, to fork a fresh launcher per command. The zygote gets an empty
 * environment and dies with the caller; each command is supervised exactly
 * as before (the zygote's child *is* the launcher).
 *
 * Requests are synchronous: the reply (the child's pid) arrives once the
 * zygote has handed the request to its spare, a child forked ahead of time
 * (tens of microseconds; Node's own spawn blocks until its child has
 * exec'd). Exits arrive as "pid waitstatus" lines.
 */
import { constants } from 'node:os'
import { SetupError } from '../../../errors.js'
import type { NativeFdReader } from '../../../native/binding.js'
import { loadNative } from '../../../native/load.js'
import { fromNativeError } from '../../../native/native-error.js'
import { signalName } from '../../../native/errno.js'
import { WIRE } from './wire.js'
import { standardFdsOpen } from '../../std-fds.js'

/** How long a request may wait for the zygote's reply before it counts as gone. */
const REPLY_TIMEOUT_MS = 10_000
/** A request is one SOCK_SEQPACKET message, bounded by the socket's send buffer (net.core.wmem_default). */
const MAX_REQUEST_BYTES = WIRE.limit.requestBytes
/** Errors after which the request/reply stream can no longer be trusted to be in step. */
const FATAL = new Set(['ETIMEDOUT', 'ECONNRESET', 'EPIPE'])

/** Close a descriptor the addon made (fs.closeSync warns about those in a worker), ignoring errors. */
export const closeQuietly = (fd: number | undefined) => {
  if (fd === undefined) return
  try {
    loadNative().binding.close(fd)
  } catch {
    /* already closed */
  }
}

export interface ChildExit {
  exitCode: number | null
  signal: NodeJS.Signals | null
}

/** What a sandboxed child gets as fds 0..4: stdin, stdout, stderr, plan, status. */
export type ChildFds = [number, number, number, number, number]

/**
 * Run the launcher (`launcher`) or exec a wrapper such as bwrap (`exec`) in
 * the child; an exec may take more descriptors, placed on fds 5, 6, … (bwrap's
 * bind sources).
 */
export type ZygoteJob = { kind: 'launcher' } | { kind: 'exec'; file: string; args: readonly string[]; extraFds?: readonly number[] }

/** The most descriptors the zygote takes with one request. */
const MAX_FDS = WIRE.fd.maxPerRequest

function decodeWaitStatus(status: number): ChildExit {
  const sig = status & 0x7f
  if (sig === 0) return { exitCode: (status >> 8) & 0xff, signal: null }
  return { exitCode: null, signal: signalName(sig) ?? null }
}

function request(fields: readonly string[]): Buffer {
  return Buffer.from(fields.map((f) => `${f}\0`).join(''))
}

class Zygote {
  /**
   * Runs waiting for their exit line, by pid. A list, oldest first: should a
   * pid be reused (a full pid wrap-around) before the previous child's exit
   * line was read, that line is the older child's, and the zygote reaps and
   * reports children of one pid in the order they were created.
   */
  private readonly waiters = new Map<number, ((exit: ChildExit) => void)[]>()
  private readonly events: NativeFdReader
  private readonly pid: number
  private buffered = ''
  dead = false
  /**
   * The cgroups the waiting spare child joined ahead of its launch
   * (cgroup/ahead.ts): the run they were made for (`owner`), and what to do
   * when another launch comes first.
   */
  private joined: { owner: object; dropped: () => void } | undefined
  private joins: boolean | undefined

  constructor(
    launcher: string,
    private readonly socket: number,
    peer: number,
  ) {
    // Started by the addon with posix_spawn (no fork of the Node process, as
    // child_process.spawn would do: ~15 ms of a one-shot CLI run).
    let started: { pid: number; events: number }
    try {
      started = loadNative().binding.spawnZygote(launcher, peer)
    } catch (e) {
      closeQuietly(socket)
      throw fromNativeError(e, { step: 'launch', syscall: 'posix_spawn', detail: `could not start ${launcher} --zygote` })
    } finally {
      closeQuietly(peer)
    }
    this.pid = started.pid
    // Gone once its event pipe reaches end of file (or fails): exit lines
    // read before that are handled first. The lines are ASCII.
    this.events = new (loadNative().binding.FdReader)(started.events, (d) => (d ? this.onData(d.toString('latin1')) : this.shutdown()))
    this.events.unref()
  }

  private onData(d: string): void {
    this.buffered += d
    for (let i = this.buffered.indexOf('\n'); i >= 0; i = this.buffered.indexOf('\n')) {
      const [pid, status] = this.buffered.slice(0, i).split(' ').map(Number)
      this.buffered = this.buffered.slice(i + 1)
      const queue = pid === undefined ? undefined : this.waiters.get(pid)
      const waiter = status === undefined ? undefined : queue?.shift()
      if (queue?.length === 0) this.waiters.delete(pid!)
      waiter?.(decodeWaitStatus(status!))
    }
    if (this.waiters.size === 0) this.events.unref()
  }

  /**
   * The zygote is gone before it reported some of its children: they died
   * with it (each set PR_SET_PDEATHSIG SIGKILL before its exec,
   * zygote-child.c; the run's cgroup, where there is one, is killed whole
   * too), so they are reported as killed — never as an end with neither an
   * exit code nor a signal. The zygote is collected.
   */
  private shutdown(): void {
    if (this.dead) return
    this.dead = true
    closeQuietly(this.socket)
    this.dropJoined()
    for (const queue of this.waiters.values()) for (const waiter of queue) waiter({ exitCode: null, signal: 'SIGKILL' })
    this.waiters.clear()
    this.collect(20)
  }

  /** waitpid() the zygote once it has exited (nothing else will: Node did not start it). */
  private collect(tries: number): void {
    if (loadNative().binding.reap(this.pid) || tries <= 0) return
    setTimeout(() => this.collect(tries - 1), 50).unref()
  }

  private call(fields: readonly string[], fds: number[]): number {
    if (this.dead) throw new SetupError('launch', 'zygote', 0, 'ECONNRESET', 'the launcher zygote is gone')
    const req = request(fields)
    if (req.length > MAX_REQUEST_BYTES) {
      throw new SetupError('launch', 'sendmsg', 7, 'E2BIG', `the launch request is ${req.length} bytes (at most ${MAX_REQUEST_BYTES}): too many mounts or arguments`)
    }
    try {
      return loadNative().binding.zygoteCall(this.socket, req, fds, REPLY_TIMEOUT_MS)
    } catch (e) {
      const err = e as { code?: string }
      // Only a zygote that stopped answering (or vanished) is dropped: its
      // runs are then torn down by their parent-death signals. A request it
      // never received (EBADF, EMSGSIZE) leaves the others alone.
      if (FATAL.has(err.code ?? '')) {
        try {
          process.kill(this.pid, 'SIGKILL')
        } catch {
          /* already gone */
        }
        this.shutdown()
      }
      throw fromNativeError(e, { step: 'launch', syscall: 'zygote', detail: 'the launcher zygote did not take the request' })
    }
  }

  /**
   * Have the waiting spare child join these cgroups now, ahead of its
   * launch (cgroup/ahead.ts says why); `owner` is the run they were made
   * for (start()'s `cgroupOwner`). False when it could not: no spare, or a
   * launcher without joins (the run then joins at its launch, as before).
   */
  joinAhead(procs: readonly number[], owner: object, dropped: () => void): boolean {
    if (this.dead || this.joined || procs.length === 0 || !this.takesJoins()) return false
    try {
      this.send([WIRE.request.join], [...procs])
    } catch {
      return false
    }
    this.joined = { owner, dropped }
    return true
  }

  /**
   * A request the zygote does not answer (a join): the caller's thread does
   * not wait for the zygote. Whether the spare took it does not matter for
   * what runs where: a child that did not join ahead joins at its launch.
   */
  private send(fields: readonly string[], fds: number[]): void {
    if (this.dead) throw new SetupError('launch', 'zygote', 0, 'ECONNRESET', 'the launcher zygote is gone')
    try {
      loadNative().binding.zygoteSend(this.socket, request(fields), fds)
    } catch (e) {
      throw fromNativeError(e, { step: 'launch', syscall: 'zygote', detail: 'the launcher zygote did not take the request' })
    }
  }

  /**
   * Whether this zygote takes joins (protocol 2), asked once. A join is
   * never answered: sent to a launcher that answers it (an older one), every
   * later reply would be read as the next request's.
   */
  private takesJoins(): boolean {
    if (this.joins === undefined) {
      try {
        this.joins = this.call([WIRE.request.version], []) === WIRE.zygote.protocol
      } catch {
        this.joins = false
      }
    }
    return this.joins
  }

  /** The spare stays joined (a launch it did not take): the zygote replaces it. */
  private replaceJoined(): void {
    if (!this.joined) return
    try {
      if (!this.dead) this.send([WIRE.request.join], [])
    } finally {
      this.dropJoined()
    }
  }

  private dropJoined(): void {
    const joined = this.joined
    this.joined = undefined
    joined?.dropped()
  }

  /**
   * Fork one child; resolves `exited` with its wait status. `cgroups`: open
   * cgroup.procs files the child writes itself into before it runs anything
   * (native/linux/zygote-child.c), sent last and never passed on to it;
   * `cgroupOwner`, the run they belong to.
   *
   * The waiting spare may sit in cgroups joined ahead for another run: any
   * launch but that run's first has the zygote replace it by a fresh one,
   * so no command starts in cgroups made for another run.
   */
  start(job: ZygoteJob, fds: ChildFds, cgroups: readonly number[] = [], cgroupOwner?: object): { pid: number; exited: Promise<ChildExit> } {
    if (this.joined && this.joined.owner !== cgroupOwner) this.replaceJoined() // throws when the zygote is gone: no launch then either
    const umask = process.umask().toString(8)
    const ncg = String(cgroups.length)
    const fields = job.kind === 'launcher' ? [WIRE.request.launch, umask, ncg] : [WIRE.request.exec, umask, ncg, job.file, ...job.args]
    const all = [...fds, ...(job.kind === 'exec' ? (job.extraFds ?? []) : []), ...cgroups]
    if (all.length > MAX_FDS) {
      throw new SetupError('launch', 'sendmsg', 7, 'E2BIG', `the launch needs ${all.length} descriptors (at most ${MAX_FDS}): too many protected or pinned paths`)
    }
    let pid: number
    try {
      pid = this.call(fields, all)
    } catch (e) {
      try {
        this.replaceJoined()
      } catch {
        /* the launch's own error is the one to report */
      }
      throw e
    }
    // Started: the spare, joined or not, is this launch's now (or the zygote forked without
    // one). Refused (a request the zygote could not take): the spare still waits, joined.
    if (pid > 0) this.joined = undefined
    else this.replaceJoined()
    if (pid <= 0) throw fromNativeError({ errno: -pid }, { step: 'launch', syscall: 'fork', detail: 'the launcher zygote could not fork' })
    const exited = new Promise<ChildExit>((resolve) => {
      const queue = this.waiters.get(pid)
      if (queue) queue.push(resolve)
      else this.waiters.set(pid, [resolve])
    })
    this.events.ref()
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
      return this.call([WIRE.request.kill, String(pid), String(n), group ? WIRE.request.killGroup : WIRE.request.killProcess], []) === 0
    } catch {
      return false
    }
  }
}

const zygotes = new Map<string, Zygote>()

/**
 * A zygote forks every command from the identity and privileges it started
 * with, so it serves one identity: a caller that changes its uid, gid or
 * groups (a service dropping root) gets a new zygote, and its later
 * commands never run with the old identity.
 */
function identity(): string {
  const groups = process.getgroups?.() ?? []
  return [process.getuid?.(), process.geteuid?.(), process.getgid?.(), process.getegid?.(), [...groups].sort((a, b) => a - b).join(',')].join(':')
}

/** The zygote for this launcher binary and this identity, started on first use (and again if it died). */
export function zygoteFor(launcher: string): Zygote {
  const key = `${identity()}\0${launcher}`
  const existing = zygotes.get(key)
  if (existing && !existing.dead) return existing
  standardFdsOpen()
  const [mine, peer] = loadNative().binding.seqpacketPair()
  const z = new Zygote(launcher, mine, peer)
  zygotes.set(key, z)
  return z
}

export type { Zygote }
