/**
 * Spawn the launcher with the plan on fd 3 and the status pipe on fd 4, and
 * turn its report into a result or a typed error.
 *
 * The launcher itself gets an empty environment: LD_PRELOAD and friends in
 * the caller's environment must not run code in it before it confines
 * anything. The command's environment travels inside the plan.
 *
 * This hot path uses node:child_process directly rather than execa: `npm
 * run bench` shows execa's per-spawn bookkeeping alone costs more than the
 * whole 1.3× budget cordon has over a bare spawn. execa is used where a
 * spawn is not per-command (hooks, bwrap probing, tests).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { constants } from 'node:os'
import type { Readable } from 'node:stream'
import { SetupError } from '../../errors.js'
import type { LauncherPlan } from './plan.js'

export const PLAN_FD = 3
export const STATUS_FD = 4
/** The launcher's own arguments: where to read the plan and write the status. */
export const LAUNCHER_ARGS: readonly string[] = ['--plan-fd', String(PLAN_FD), '--status-fd', String(STATUS_FD)]
/** Exit status of the launcher when a confinement step failed. */
export const EXIT_SETUP = 125

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
  step?: string
  syscall?: string
  errno?: number
  detail?: string
}

const errnoNames = new Map(Object.entries(constants.errno).map(([k, v]) => [v, k]))
export const errnoName = (n: number): string => errnoNames.get(n) ?? `E${n}`

export interface LaunchSpec {
  /** Executable to spawn: the launcher, or bwrap with the launcher inside. */
  file: string
  args: string[]
  plan: LauncherPlan
  stdin: 'pipe' | 'ignore' | 'inherit'
  stdout: 'pipe' | 'inherit' | 'ignore'
  stderr: 'pipe' | 'inherit' | 'ignore'
  input?: string | Uint8Array
  maxBuffer?: number
}

export interface Exit {
  exitCode: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  /** Output beyond maxBuffer was dropped. */
  truncated: boolean
}

export interface Launched {
  child: ChildProcess
  /** The setup record: resolves as soon as the command started (or setup failed). */
  started: Promise<LaunchStatus | undefined>
  /** Everything the launcher said, once the status pipe closed. */
  final: Promise<FinalStatus>
  exit: Promise<Exit>
}

function readAll(stream: Readable | null | undefined, max: number): Promise<{ text: string; truncated: boolean }> {
  return new Promise((resolve) => {
    if (!stream) return resolve({ text: '', truncated: false })
    const chunks: Buffer[] = []
    let size = 0
    let truncated = false
    stream.on('data', (d: Buffer) => {
      if (size + d.length > max) {
        truncated = true
        d = d.subarray(0, Math.max(0, max - size))
      }
      size += d.length
      if (d.length) chunks.push(d)
    })
    const done = () => resolve({ text: Buffer.concat(chunks).toString('utf8'), truncated })
    stream.on('end', done)
    stream.on('close', done)
    stream.on('error', done)
  })
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
function statusReader(stream: Readable | null | undefined): { started: Promise<LaunchStatus | undefined>; final: Promise<FinalStatus> } {
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
  if (!stream) {
    done()
    return { started, final }
  }
  stream.setEncoding('utf8')
  stream.on('data', (d: string) => {
    buf += d
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      take(buf.slice(0, i))
      buf = buf.slice(i + 1)
    }
    if (buf.length > 64 * 1024) buf = '' // never an unbounded line
  })
  stream.on('end', done)
  stream.on('close', done)
  stream.on('error', done)
  return { started, final }
}

export function launch(spec: LaunchSpec): Launched {
  const stdin = spec.input !== undefined ? 'pipe' : spec.stdin
  const child = spawn(spec.file, spec.args, {
    stdio: [stdin, spec.stdout, spec.stderr, 'pipe', 'pipe'],
    env: {},
  })
  const planPipe = child.stdio[PLAN_FD] as NodeJS.WritableStream | null
  planPipe?.on('error', () => {}) // a launcher that died early: reported through status/exit
  planPipe?.end(JSON.stringify(spec.plan))
  if (spec.input !== undefined) {
    child.stdin?.on('error', () => {})
    child.stdin?.end(spec.input)
  }
  const max = spec.maxBuffer ?? 64 * 1024 * 1024
  const reader = statusReader(child.stdio[STATUS_FD] as Readable)
  const out = readAll(child.stdout, max)
  const err = readAll(child.stderr, max)
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
    child.on('error', () => resolve([null, null]))
    child.on('close', (code, signal) => resolve([code, signal]))
  })
  const exit = Promise.all([exited, out, err]).then(([[exitCode, signal], o, e]) => ({
    exitCode,
    signal,
    stdout: o.text,
    stderr: e.text,
    truncated: o.truncated || e.truncated,
  }))
  return { child, started: reader.started, final: reader.final, exit }
}

/** A launcher error record → the typed error the caller sees. */
export function setupErrorFrom(status: LaunchStatus | undefined, exitCode: number | null | undefined, stderr: string): SetupError {
  if (status && !status.ok) {
    const errno = status.errno ?? 0
    return new SetupError(status.step ?? 'unknown', status.syscall ?? 'unknown', errno, errnoName(errno), status.detail || undefined)
  }
  const tail = stderr.trim().split('\n').slice(-3).join(' | ')
  return new SetupError('launch', 'spawn', 0, 'EUNKNOWN', `the sandbox exited ${exitCode ?? '?'} before reporting${tail ? `: ${tail}` : ''}`)
}
