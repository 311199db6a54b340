/**
 * Starting a planned Windows launch: resolve the program, quote the
 * command line, spawn the launcher with the plan on descriptor 3 and its
 * status on 4, and read how the command ended.
 *
 * The plan pipe stays open for the whole run: it is the stop channel.
 * `stop()` ends it, and the launcher terminates the job (the command and
 * everything it started), restores the ACLs and exits. If the launcher
 * does not exit within the grace period it is killed; its job then dies
 * with it (kill-on-close) and the next launch's sweep restores the ACLs.
 * Windows has no signals to forward: `kill()` is a stop.
 */
import type { ChildProcess } from 'node:child_process'
import type { Readable, Writable } from 'node:stream'
import { builtin } from '../../native/builtin.js'
import { CordonError, SetupError, UnsupportedError } from '../../errors.js'
import type { RunEnd, StartedRun, StartRequest } from '../backend.js'
import type { Enforcement } from '../enforcement.js'
import { commandLine } from './command-line.js'
import type { Win32LaunchPlan } from './plan.js'
import { resolveProgram } from './program.js'
import { parseRecords, setupErrorOf, type Win32Exit, type Win32Record, type Win32Setup } from './status.js'
import { encodePlan, envBlock } from './wire.js'

// Loaded when a run starts on this OS (native/builtin.ts).
const childProcess = builtin<typeof import('node:child_process')>('node:child_process')
const streams = builtin<typeof import('node:stream')>('node:stream')

const STOP_GRACE_MS = 5000
const DEFAULT_MAX_BUFFER = 64 * 1024 * 1024

export interface Win32Prepared {
  launcher: string
  cwd: string
  /** The sandbox's temp dir when a write root covers it: the command's TEMP and TMP. */
  tmpdir?: string
  plan: Win32LaunchPlan
  enforcement: Enforcement
}

/** `NAME=value` strings as an object; a name may start with `=` on Windows (`=C:=C:\\dir`). */
export function envObject(env: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (const kv of env) {
    const eq = kv.indexOf('=', 1)
    if (eq > 0) out[kv.slice(0, eq)] = kv.slice(eq + 1)
  }
  return out
}

/**
 * Windows programs find their temp dir in TEMP and TMP (GetTempPath2), not
 * TMPDIR; at low integrity the user's own temp dir is not writable, so the
 * sandbox's (a write root, labeled low for the launch) takes their place.
 */
export function withTemp(env: Record<string, string>, tmpdir: string | undefined): Record<string, string> {
  if (!tmpdir) return env
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(env)) if (!['TEMP', 'TMP'].includes(k.toUpperCase())) out[k] = v
  return { ...out, TEMP: tmpdir, TMP: tmpdir }
}

/** The report with what the launcher says it applied. */
function applied(expected: Enforcement, st: Win32Setup): Enforcement {
  if (expected.platform.os !== 'win32') return expected
  return { ...expected, platform: { ...expected.platform, integrity: st.integrity, mitigations: st.mitigations, launcher: { pid: st.pid, pipes: st.handles } } }
}

/** One output pipe kept for the result (at most `max` bytes), mirrored into a stream of the caller's when asked. */
function collect(src: Readable | null, max: number, all: Buffer[] | undefined, mirror: boolean, listen?: (chunk: Buffer) => void) {
  const chunks: Buffer[] = []
  let size = 0
  let truncated = false
  const stream = src && mirror ? new (streams().PassThrough)() : null
  const ended = new Promise<void>((resolve) => {
    if (!src) return resolve()
    src.on('data', (d: Buffer) => {
      stream?.write(d)
      listen?.(d)
      const keep = d.subarray(0, Math.max(0, max - size))
      if (keep.length < d.length) truncated = true
      size += keep.length
      if (keep.length) chunks.push(keep), all?.push(keep)
    })
    src.on('close', () => (stream?.end(), resolve()))
    src.on('error', () => undefined)
  })
  return { stream, ended, bytes: () => Buffer.concat(chunks), truncated: () => truncated }
}

function notFound(name: string): SetupError {
  return new SetupError('execve', 'SearchPath', 2, 'ENOENT', `${name}: not found in the command's PATH (the current directory is not searched)`)
}

function failedRun(err: CordonError): StartedRun {
  const finished = Promise.reject(err)
  const started = Promise.reject(err)
  finished.catch(() => {})
  started.catch(() => {})
  return { pid: undefined, stdin: null, stdout: null, stderr: null, terminal: null, kill: () => {}, stop: () => {}, started, finished }
}

export function startWin32(prepared: Win32Prepared, req: StartRequest): StartedRun {
  // No pseudo-console of the command's own yet (docs/windows.md): refused, never a run on the caller's console instead.
  if (req.tty) return failedRun(new UnsupportedError('tty', "a pseudo-terminal of the command's own (Windows backend)", 'not implemented on Windows yet', 'run without tty on Windows'))
  const cwd = req.cwd ?? prepared.cwd
  const env = withTemp(envObject(req.env), prepared.tmpdir)
  let plan: Buffer
  try {
    // A program that cannot be run (not found, a batch file) fails the run as a launch failure does: nothing was started.
    const app = resolveProgram(req.argv[0] ?? '', { cwd, env })
    if (!app) return failedRun(notFound(req.argv[0] ?? ''))
    plan = encodePlan(prepared.plan, { app, cmdline: commandLine(req.argv), cwd, env: envBlock(env) })
  } catch (err) {
    if (err instanceof CordonError) return failedRun(err)
    throw err
  }
  const child = childProcess().spawn(prepared.launcher, [], {
    stdio: [req.stdin, req.stdout, req.stderr, 'pipe', 'pipe'],
    windowsHide: true,
    // The launcher's own environment: only what Windows itself needs to load DLLs. The command's is in the plan.
    env: { SystemRoot: process.env.SystemRoot ?? 'C:\\Windows' },
  })
  const control = child.stdio[3] as Writable
  control.on('error', () => undefined) // the launcher gone: its exit status says why
  control.write(plan)
  return supervise(child, control, prepared, req)
}

function supervise(child: ChildProcess, control: Writable, prepared: Win32Prepared, req: StartRequest): StartedRun {
  const max = req.maxBuffer ?? DEFAULT_MAX_BUFFER
  const all = req.all ? ([] as Buffer[]) : undefined
  // With a listener the chunks go to it, not to streams of the caller's (backend.ts StartRequest.onOutput).
  const on = req.onOutput
  const out = collect(child.stdout, max, all, req.streams === true && !on, on && ((d) => on('stdout', d)))
  const err = collect(child.stderr, max, all, req.streams === true && !on, on && ((d) => on('stderr', d)))
  feedStdin(child, req)
  let text = ''
  let stopped = false
  const records: Win32Record[] = []
  let onFirst!: (r: Win32Record | undefined) => void
  const first = new Promise<Win32Record | undefined>((resolve) => (onFirst = resolve))
  ;(child.stdio[4] as Readable).on('data', (d: Buffer) => {
    text += d.toString('utf8')
    const nl = text.lastIndexOf('\n')
    if (nl < 0) return
    records.push(...parseRecords(text.slice(0, nl)))
    text = text.slice(nl + 1)
    if (records[0]) onFirst(records[0])
  })
  const exited = new Promise<{ code: number | null }>((resolve) => {
    child.on('close', (code) => resolve({ code }))
    child.on('error', () => resolve({ code: null }))
  })
  void exited.then(() => onFirst(undefined))
  const started = first.then((r) => {
    if (r && 'ok' in r && r.ok) return applied(prepared.enforcement, r)
    // A stop that lands while the launcher still reads its plan ends the plan early: that is the stop, not a setup failure.
    if (stopped) return undefined
    if (r && 'ok' in r && !r.ok) throw setupErrorOf(r)
    throw new SetupError('launch', 'spawn', 0, 'EUNKNOWN', 'the Windows launcher exited before reporting')
  })
  started.catch(() => {})
  const finished = Promise.all([started, exited, out.ended, err.ended]).then(([setup, launcher]): RunEnd => {
    const exit = records.find((r): r is Win32Exit => 'exit' in r)
    const enforcement = setup ?? prepared.enforcement
    const notes = [...enforcement.notes]
    if (exit && !exit.restored) notes.push(`ACLs not fully restored (${exit.restoreError?.call ?? '?'}: Win32 error ${exit.restoreError?.error ?? '?'} on ${exit.restoreError?.detail ?? '?'}); the next launch's sweep retries from the journal`)
    if (!exit) notes.push('the launcher ended without an exit record (it was killed): its job ended the command, and the next launch restores the ACLs from the journal')
    const killed = stopped && (!exit || exit.stopped)
    return {
      exitCode: killed ? null : (exit?.code ?? launcher.code),
      signal: killed ? 'SIGKILL' : null,
      stdout: out.bytes(),
      stderr: err.bytes(),
      ...(all ? { all: Buffer.concat(all) } : {}),
      truncated: out.truncated() || err.truncated(),
      enforcement: { ...enforcement, notes },
    }
  })
  const stop = () => {
    if (stopped) return
    stopped = true
    control.destroy() // end of file on the stop channel
    const fallback = setTimeout(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill()
    }, STOP_GRACE_MS)
    fallback.unref()
  }
  return { pid: child.pid, stdin: req.streams ? child.stdin : null, stdout: out.stream, stderr: err.stream, terminal: null, kill: stop, stop, started, finished }
}

function feedStdin(child: ChildProcess, req: StartRequest): void {
  if (!child.stdin) return
  child.stdin.on('error', () => undefined) // the command may exit without reading its input
  if (req.streams) return
  if (req.input !== undefined) child.stdin.end(req.input)
  else child.stdin.end()
}
