/**
 * Start a sandboxed child — the launcher with the plan on fd 3 and the
 * status pipe on fd 4, or bwrap with the launcher inside — through the
 * launcher zygote (zygote.ts), and turn its report into a result or a typed
 * error.
 *
 * The child gets an empty environment: LD_PRELOAD and friends in the
 * caller's environment must not run code in it before it confines anything.
 * The command's environment travels inside the plan.
 *
 * This hot path does not use execa: `npm run bench` shows execa's per-spawn
 * bookkeeping alone costs more than the whole 1.3× budget cordon has over a
 * bare spawn. execa is used where a spawn is not per-command (hooks, bwrap
 * probing, tests).
 */
import { openSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Readable, Writable } from 'node:stream'
import { SetupError } from '../../../errors.js'
import { loadNative } from '../../../native/load.js'
import { fromNativeError } from '../../../native/native-error.js'
import type { LauncherPlan } from '../landlock/plan.js'
import { readOutput, type CollectedOutput, type Output, type OutputOptions } from './output.js'
import { callerTerminal, relayTerminal, type CallerTerminal } from './caller-terminal.js'
import { Pty } from './pty.js'
import { openCommandTerminal, type TerminalRun } from './command-terminal.js'
import type { CommandTerminal, TerminalSize } from '../../backend.js'
import { WIRE } from './wire.js'
import { closeQuietly, zygoteFor, type ChildExit, type ChildFds, type Zygote } from './zygote.js'

export const PLAN_FD = WIRE.fd.plan
export const STATUS_FD = WIRE.fd.status
/** The launcher's own arguments: where to read the plan and write the status. */
export const LAUNCHER_ARGS: readonly string[] = [WIRE.arg.planFd, String(PLAN_FD), WIRE.arg.statusFd, String(STATUS_FD)]
/** Exit status of the launcher when a confinement step failed. */
export const EXIT_SETUP = WIRE.exit.setup

export interface LaunchStatus {
  ok: boolean
  landlockAbi?: number
  fsHandled?: string
  netHandled?: boolean
  scoped?: number
  seccompRules?: number
  noNewPrivs?: boolean
  capsDropped?: boolean
  boundingDropped?: boolean
  skippedRules?: number
  /** The metadata filter (native/linux/metadata-filter.c): 1 supervised, 0 refusing every call, -1 not planned. */
  metadata?: number
  step?: string
  syscall?: string
  errno?: number
  detail?: string
}

export interface LaunchSpec {
  /** The launcher binary (it runs as the zygote). */
  launcher: string
  /** What the child runs: the launcher itself when `file` is `launcher`, else `file args` (bwrap with the launcher inside). */
  file: string
  args: string[]
  plan: LauncherPlan
  /** Open cgroup.procs files of the run's cgroups: the child joins them before it runs anything (zygote.ts). */
  cgroupProcs?: readonly number[]
  /** The run those files belong to (zygote.ts start(): a spare that joined them ahead is used for it alone). */
  cgroupOwner?: object
  /** Paths bwrap binds by descriptor (`file` is bwrap): opened here, without following symlinks, right before the request. */
  bindSources?: readonly string[]
  stdin: 'pipe' | 'ignore' | 'inherit'
  stdout: 'pipe' | 'inherit' | 'ignore'
  stderr: 'pipe' | 'inherit' | 'ignore'
  input?: string | Uint8Array
  maxBuffer?: number
  /** Keep stdout and stderr interleaved as well (`Exit.all`). */
  all?: boolean
  /** Hand the caller streams of its piped stdio (`spawn()`); without, output is only collected and a piped stdin gets `input` or end of file. */
  streams: boolean
  /** Each output chunk as read, instead of output streams (backend.ts StartRequest.onOutput). */
  onOutput?: OutputOptions['onOutput']
  /** A terminal of the command's own as its stdio (command-terminal.ts); the stdio kinds do not apply. */
  tty?: TerminalSize
}

export interface Exit extends CollectedOutput {
  exitCode: number | null
  signal: NodeJS.Signals | null
}

/** The started child, as much of a ChildProcess as the sandbox needs. */
export interface LaunchedChild {
  pid: number
  stdin: Writable | null
  stdout: Readable | null
  stderr: Readable | null
  exitCode: number | null
  signalCode: NodeJS.Signals | null
  /** The command's own terminal (`tty` launches). */
  terminal: CommandTerminal | null
  /** Signal the child (`group`: its process group); false when it is already gone. */
  kill(signal: NodeJS.Signals, group: boolean): boolean
}

export interface Launched {
  child: LaunchedChild
  /** The setup record: resolves as soon as the command started (or setup failed). */
  started: Promise<LaunchStatus | undefined>
  /** Everything the launcher said, once the status pipe closed. */
  final: Promise<FinalStatus>
  /** The child (the launcher, or bwrap) has exited: anything of the run still alive was left behind. */
  exited: Promise<unknown>
  exit: Promise<Exit>
  /** The zygote the launch went to (its waiting child joins the next run's cgroup: cgroup/ahead.ts). */
  zygote: Zygote
}

/** The command's wait status as the launcher's supervisor saw it. */
export interface CommandExit {
  code?: number
  signal?: number
}

export interface FinalStatus {
  /** The last setup record: ok, or the failing step (an execve failure comes after ok). */
  setup: LaunchStatus | undefined
  exit: CommandExit | undefined
}

/**
 * The status pipe carries JSON lines: one setup record (`ok: true` with what
 * was applied, or `ok: false` with the failing step), then, from the
 * supervisor, one `exit` record with the command's wait status. An error
 * record after an ok one (execve failed in the child) wins.
 */
function statusReader(fd: number): { started: Promise<LaunchStatus | undefined>; final: Promise<FinalStatus> } {
  let setup: LaunchStatus | undefined
  let exit: CommandExit | undefined
  let resolveStarted!: (s: LaunchStatus | undefined) => void
  let resolveFinal!: (f: FinalStatus) => void
  const started = new Promise<LaunchStatus | undefined>((r) => (resolveStarted = r))
  const final = new Promise<FinalStatus>((r) => (resolveFinal = r))
  let buf = ''
  const take = (line: string) => {
    let rec: (LaunchStatus & { exit?: boolean; code?: number; signal?: number; lost?: boolean }) | undefined
    try {
      rec = JSON.parse(line)
    } catch {
      return
    }
    if (!rec) return
    if (rec.exit) exit = rec.lost ? undefined : { ...(rec.code !== undefined ? { code: rec.code } : {}), ...(rec.signal !== undefined ? { signal: rec.signal } : {}) }
    else if (!setup || setup.ok) setup = rec
    if (setup?.ok) resolveStarted(setup) // the command started: `enforcement` need not wait for its end
  }
  const done = () => {
    if (buf) take(buf)
    buf = ''
    resolveStarted(setup)
    resolveFinal({ setup, exit })
  }
  // The launcher writes JSON (UTF-8); a character split across two reads is
  // kept whole by the decoder.
  const text = new TextDecoder()
  new (loadNative().binding.FdReader)(fd, (chunk) => {
    if (!chunk) return done()
    buf += text.decode(chunk, { stream: true })
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      take(buf.slice(0, i))
      buf = buf.slice(i + 1)
    }
    if (buf.length > 64 * 1024) buf = '' // never an unbounded line
  })
  return { started, final }
}

let devNull: number | undefined

/** Our end and the child's end of one of its standard descriptors. */
interface StdioPair {
  mine: number | undefined
  theirs: number
  /** The child's end is ours to close once the zygote has it. */
  owned: boolean
}

function stdio(kind: 'pipe' | 'ignore' | 'inherit', fd: 0 | 1 | 2, pipe: () => [number, number]): StdioPair {
  if (kind === 'inherit') return { mine: undefined, theirs: fd, owned: false }
  if (kind === 'ignore') return { mine: undefined, theirs: (devNull ??= openSync('/dev/null', 'r+')), owned: false }
  const [r, w] = pipe()
  return fd === 0 ? { mine: w, theirs: r, owned: true } : { mine: r, theirs: w, owned: true }
}

/**
 * The PTY the command gets: in place of the caller's terminals among the
 * inherited stdio (caller-terminal.ts: `caller` says which), or as all
 * three standard descriptors (a `tty` launch: command-terminal.ts).
 */
interface Terminal {
  caller?: CallerTerminal
  pty: Pty
}

/** Which of the child's standard descriptors get the PTY slave, the first being its controlling terminal. */
function ptyFds(tty: Terminal): readonly (0 | 1 | 2)[] {
  return tty.caller ? tty.caller.fds : [0, 1, 2]
}

/**
 * The five descriptors of a child: [stdin, stdout, stderr, plan, status].
 * The plan is a sealed memfd written in full before the child starts
 * (cordon_sealed_memfd): nothing to feed while it runs, however large.
 * Where the caller's terminal would be inherited, the child gets the slave
 * of its own PTY, and the plan asks the launcher to make it the command's
 * controlling terminal (Pty releases cordon's copy of the slave).
 */
function childDescriptors(spec: LaunchSpec, kinds: readonly ['pipe' | 'ignore' | 'inherit', LaunchSpec['stdout'], LaunchSpec['stderr']], tty: Terminal | undefined): StdioPair[] {
  const { binding } = loadNative()
  const pairs: StdioPair[] = []
  try {
    for (const fd of [0, 1, 2] as const) {
      pairs.push(tty && ptyFds(tty).includes(fd) ? { mine: undefined, theirs: tty.pty.slave, owned: false } : stdio(kinds[fd], fd, binding.pipe))
    }
    const plan = tty ? { ...spec.plan, ctty: ptyFds(tty)[0]! } : spec.plan
    pairs.push({ mine: undefined, theirs: binding.sealedMemfd(Buffer.from(JSON.stringify(plan))), owned: true })
    const [statusR, statusW] = binding.pipe()
    pairs.push({ mine: statusR, theirs: statusW, owned: true })
    return pairs
  } catch (e) {
    for (const p of pairs) (closeQuietly(p.mine), p.owned && closeQuietly(p.theirs))
    throw fromNativeError(e, { step: 'launch', syscall: 'pipe2', detail: "could not make the command's pipes" })
  }
}

/**
 * Our end of a piped stdin. `spawn()` hands the caller a stream (node:net,
 * loaded then only); its errors — a write after the command ended, EPIPE —
 * reach the caller's write callback and any 'error' listener it adds, but
 * never become an uncaught exception. A `run()` writes `input`, or closes
 * the pipe at once: a command that reads stdin sees end of file instead of
 * waiting for a writer nobody has.
 */
let net: typeof import('node:net') | undefined
function stdinFor(fd: number | undefined, spec: LaunchSpec): Writable | null {
  if (fd === undefined) return null
  if (!spec.streams && spec.input === undefined) {
    closeQuietly(fd)
    return null
  }
  const socket = new (net ??= createRequire(import.meta.url)('node:net') as typeof import('node:net')).Socket({ fd, readable: false, writable: true })
  socket.on('error', () => {})
  if (spec.input !== undefined) socket.end(spec.input)
  return spec.streams ? socket : null
}

/**
 * Open the bind sources of a namespace-mode launch. A path that now meets a
 * symlink (or a non-directory) on the way was changed after the launch was
 * planned — by a sandbox still running in the same workspace, most likely —
 * and is not mounted: the launch stops.
 */
function openSources(paths: readonly string[]): number[] {
  const { binding } = loadNative()
  const fds: number[] = []
  try {
    for (const path of paths) {
      try {
        fds.push(binding.openNoFollow(path))
      } catch (e) {
        throw fromNativeError(e, { step: 'launch', syscall: 'openat', detail: `${path} changed after the launch was planned (a symlink or a missing directory on the way); refusing to mount it` })
      }
    }
    return fds
  } catch (e) {
    for (const fd of fds) closeQuietly(fd)
    throw e
  }
}

function startChild(z: Zygote, spec: LaunchSpec, pairs: StdioPair[]): { pid: number; exited: Promise<ChildExit> } {
  const fds = pairs.map((p) => p.theirs) as ChildFds
  let sources: number[] = []
  try {
    sources = spec.bindSources?.length ? openSources(spec.bindSources) : []
    const job = spec.file === spec.launcher ? ({ kind: 'launcher' } as const) : ({ kind: 'exec', file: spec.file, args: spec.args, extraFds: sources } as const)
    return z.start(job, fds, spec.cgroupProcs ?? [], spec.cgroupOwner)
  } catch (e) {
    for (const p of pairs) closeQuietly(p.mine)
    throw e
  } finally {
    for (const p of pairs) if (p.owned) closeQuietly(p.theirs) // the child has its copies now
    for (const fd of sources) closeQuietly(fd)
  }
}

/** The command's own terminal when the caller's would be inherited; nothing (and no cost beyond a check per inherited fd) otherwise. */
function terminalFor(kinds: readonly ['pipe' | 'ignore' | 'inherit', LaunchSpec['stdout'], LaunchSpec['stderr']]): Terminal | undefined {
  const caller = callerTerminal(kinds)
  if (!caller) return undefined
  // The caller's line settings only when they are its own: a background
  // job's terminal is in the mode of whatever owns it now (a shell's line
  // editor: no echo, no canonical input), so it gets the kernel's defaults.
  const pty = Pty.open(caller.foreground ? caller.fds[0] : undefined)
  if (!caller.foreground) pty.setSize(caller.rows, caller.cols)
  return { caller, pty }
}

/**
 * After the command's end, how long its terminal's output may take to end
 * too. It ends by itself: the supervisor has killed everything left that
 * could hold the terminal. This only keeps a caller whose terminal is in
 * raw mode (^C does not reach cordon) from waiting forever if that failed.
 */
const TERMINAL_DRAIN_MS = 2000

/**
 * Once the command has ended, its terminal's output gets TERMINAL_DRAIN_MS
 * to end too; the terminal is closed (hung up) only when both have ended —
 * never while the command may still run (pty.ts, read()).
 */
function drainAfter(pty: Pty, exited: Promise<unknown>): void {
  void exited.then(() => {
    const timer = setTimeout(() => pty.close(), TERMINAL_DRAIN_MS).unref()
    void pty.ended.then(() => (clearTimeout(timer), pty.close()))
  })
}

function relayUntil(tty: Terminal | undefined, exited: Promise<unknown>): Promise<void> | undefined {
  if (!tty?.caller) return undefined
  const relayed = relayTerminal(tty.pty, tty.caller)
  drainAfter(tty.pty, exited)
  return relayed
}

/** The output of the run: its pipes, or its own terminal's (a `tty` launch). */
function outputOf(spec: LaunchSpec, pairs: StdioPair[], own: TerminalRun | undefined, exited: Promise<unknown>): Output {
  const max = spec.maxBuffer ?? 64 * 1024 * 1024
  if (!own) return readOutput(pairs[1]!.mine, pairs[2]!.mine, { max, all: spec.all === true, streams: spec.streams, ...(spec.onOutput ? { onOutput: spec.onOutput } : {}) })
  drainAfter(own.pty, exited)
  return { stdout: null, stderr: null, done: own.done, drain: () => {} }
}

export function launch(spec: LaunchSpec): Launched {
  const stdinKind = spec.input !== undefined ? 'pipe' : spec.stdin
  const kinds = [stdinKind, spec.stdout, spec.stderr] as const
  const z = zygoteFor(spec.launcher)
  const own = spec.tty ? openCommandTerminal(spec.tty, spec.maxBuffer ?? 64 * 1024 * 1024) : undefined
  const tty: Terminal | undefined = own ? { pty: own.pty } : terminalFor(kinds)
  let pairs: StdioPair[]
  let started: { pid: number; exited: Promise<ChildExit> }
  try {
    pairs = childDescriptors(spec, kinds, tty)
    started = startChild(z, spec, pairs)
  } catch (e) {
    tty?.pty.close()
    throw e
  } finally {
    tty?.pty.releaseSlave() // the child has its copies now
  }
  const { pid, exited } = started
  const relayed = relayUntil(tty, exited)
  const statusRead = statusReader(pairs[4]!.mine!)
  const stdin = stdinFor(pairs[0]!.mine, spec)
  const output = outputOf(spec, pairs, own, exited)
  const child: LaunchedChild = { pid, stdin, stdout: output.stdout, stderr: output.stderr, terminal: own?.terminal ?? null, exitCode: null, signalCode: null, kill: (signal, group) => z.kill(pid, signal, group) }
  const done = exited.then((x) => {
    child.exitCode = x.exitCode
    child.signalCode = x.signal
    stdin?.destroy() // as node:child_process does: nobody reads it any more
    output.drain()
    return x
  })
  const exit = Promise.all([done, output.done, relayed]).then(([x, out]): Exit => ({ exitCode: x.exitCode, signal: x.signal, ...out }))
  return { child, started: statusRead.started, final: statusRead.final, exited: done, exit, zygote: z }
}

/** A launcher error record → the typed error the caller sees. */
export function setupErrorFrom(status: LaunchStatus | undefined, exitCode: number | null | undefined, stderr: Uint8Array | string): SetupError {
  if (status && !status.ok) return fromNativeError(status, { step: 'unknown' })
  const tail = Buffer.from(stderr).toString('utf8').trim().split('\n').slice(-3).join(' | ')
  return new SetupError('launch', 'spawn', 0, 'EUNKNOWN', `the sandbox exited ${exitCode ?? '?'} before reporting${tail ? `: ${tail}` : ''}`)
}
