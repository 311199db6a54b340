/**
 * Starting a planned macOS launch: spawn the launcher (a new session, an
 * empty environment: no DYLD_* reaches it), hand it the plan on fd 3, read
 * its records on fd 4. The status fd closes on the command's exec, so the
 * last record says how setup ended: "ok" (the profile is in force), or the
 * failing step — then nothing of the command ran, and the run is a
 * SetupError.
 *
 * Built and run on Linux with the launcher compiled against a test double
 * of sandbox_init (test/unit/platform/darwin/backend.test.ts); not yet run
 * on macOS.
 */
import type { ChildProcess } from 'node:child_process'
import type { PassThrough, Readable, Writable } from 'node:stream'
import { builtin } from '../../native/builtin.js'
import { SetupError, UnsupportedError } from '../../errors.js'
import { fromNativeError } from '../../native/native-error.js'
import type { RunEnd, StartedRun, StartRequest } from '../backend.js'
import { statusOf, unconfinedFilesystem, type Enforcement } from '../enforcement.js'
import { encodeDarwinPlan } from './launcher-plan.js'
import type { DarwinPrepared } from './prepare.js'

// Loaded when a run starts on this OS (native/builtin.ts).
const childProcess = builtin<typeof import('node:child_process')>('node:child_process')
const streams = builtin<typeof import('node:stream')>('node:stream')

/** The launcher's command line: cordon-wire.h's `--plan-fd 3 --status-fd 4`. */
export const DARWIN_LAUNCHER_ARGS = ['--plan-fd', '3', '--status-fd', '4'] as const

interface Record_ {
  ok?: boolean
  seatbelt?: boolean
  step?: string
  syscall?: string
  errno?: number
  detail?: string
}

/** Keep at most `max` bytes of a stream; `all` gets the kept chunks in arrival order. */
function collect(stream: Readable | null, max: number, all: Buffer[] | undefined, copy: PassThrough | undefined, listen?: (chunk: Buffer) => void) {
  const chunks: Buffer[] = []
  let size = 0
  let truncated = false
  const done = new Promise<void>((resolve) => {
    if (!stream) return resolve()
    stream.on('data', (b: Buffer) => {
      copy?.write(b)
      listen?.(b)
      const room = max - size
      if (room <= 0) return void (truncated = true)
      const kept = b.length > room ? b.subarray(0, room) : b
      if (kept !== b) truncated = true
      chunks.push(kept)
      all?.push(kept)
      size += kept.length
    })
    stream.on('close', () => {
      copy?.end()
      resolve()
    })
  })
  return { done, result: () => ({ data: Buffer.concat(chunks), truncated }) }
}

function readRecords(stream: Readable | null | undefined): Promise<Record_[]> {
  const parts: Buffer[] = []
  return new Promise((resolve) => {
    if (!stream) return resolve([])
    stream.on('data', (b: Buffer) => parts.push(b))
    stream.on('close', () => {
      const lines = Buffer.concat(parts).toString('utf8').split('\n').filter(Boolean)
      resolve(lines.flatMap((l) => {
        try {
          return [JSON.parse(l) as Record_]
        } catch {
          return []
        }
      }))
    })
  })
}

/** The planned report with what the launcher said it applied. */
export function appliedDarwin(expected: Enforcement, rec: Record_): Enforcement {
  if (expected.platform.os !== 'darwin' || !expected.platform.seatbelt || rec.seatbelt === true) return expected
  // Planned but not applied: never expected (the launcher fails closed), but never reported as in force either.
  const e: Enforcement = { ...expected, mechanisms: [], platform: { ...expected.platform, seatbelt: false } }
  e.filesystem = { ...expected.filesystem, confined: false }
  e.missing = [...expected.missing, unconfinedFilesystem('the launcher reported no Seatbelt profile in force', 'report this as a cordon bug')]
  e.status = statusOf(e)
  return e
}

function setupError(rec: Record_ | undefined, code: number | null, stderr: Buffer, spawnError?: Error): SetupError {
  if (rec && rec.ok === false) return fromNativeError(rec, { step: 'unknown' })
  if (spawnError) return fromNativeError(spawnError, { step: 'launch', syscall: 'spawn', detail: `cannot start the macOS launcher: ${spawnError.message}` })
  const tail = stderr.toString('utf8').trim().split('\n').slice(-3).join(' | ')
  return new SetupError('launch', 'spawn', 0, 'EUNKNOWN', `the macOS launcher exited ${code ?? '?'} before reporting${tail ? `: ${tail}` : ''}`)
}

function feedStdin(child: ChildProcess, req: StartRequest): Writable | null {
  const stdin = child.stdin
  if (!stdin) return null
  stdin.on('error', () => {}) // the command may exit without reading: EPIPE is not our error
  if (req.input !== undefined) {
    stdin.end(req.input)
    return null
  }
  if (req.streams) return stdin
  stdin.end()
  return null
}

export function startDarwin(launcher: string, prepared: DarwinPrepared, req: StartRequest): StartedRun {
  // No PTY of the command's own yet (docs/macos.md): refused, never a run on the caller's stdio instead.
  if (req.tty) throw new UnsupportedError('tty', "a pseudo-terminal of the command's own (macOS backend)", 'not implemented on macOS yet', 'run without tty on macOS')
  const plan = encodeDarwinPlan({ ...prepared.template, argv: req.argv, env: req.env, ...(req.cwd ? { cwd: req.cwd } : {}) })
  const stdin = req.input !== undefined ? 'pipe' : req.stdin
  const child = childProcess().spawn(launcher, [...DARWIN_LAUNCHER_ARGS], { env: {}, detached: true, stdio: [stdin, req.stdout, req.stderr, 'pipe', 'pipe'] })
  const planFd = child.stdio[3] as Writable | null
  planFd?.on('error', () => {}) // a launcher that died early: its exit says why
  planFd?.end(plan)
  const all = req.all ? ([] as Buffer[]) : undefined
  // With a listener the chunks go to it, not to streams of the caller's (backend.ts StartRequest.onOutput).
  const on = req.onOutput
  const copies = req.streams && !on ? { out: req.stdout === 'pipe' ? new (streams().PassThrough)() : undefined, err: req.stderr === 'pipe' ? new (streams().PassThrough)() : undefined } : { out: undefined, err: undefined }
  const max = req.maxBuffer ?? 64 * 1024 * 1024
  const out = collect(child.stdout, max, all, copies.out, on && ((d) => on('stdout', d)))
  const err = collect(child.stderr, max, all, copies.err, on && ((d) => on('stderr', d)))
  const records = readRecords(child.stdio[4] as Readable | null)
  let spawnError: Error | undefined
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('error', (e) => {
      spawnError = e
      resolve({ code: null, signal: null })
    })
    child.on('exit', (code, signal) => resolve({ code, signal }))
  })
  let stopped = false
  const group = (signal: NodeJS.Signals) => {
    try {
      if (child.pid) process.kill(-child.pid, signal)
    } catch {
      /* already gone */
    }
  }
  const started = records.then(async (recs): Promise<Enforcement | undefined> => {
    const last = recs.at(-1)
    if (last?.ok === true) return appliedDarwin(prepared.enforcement, last)
    if (!last && stopped) return undefined
    const x = await exited
    throw setupError(last, x.code, err.result().data, spawnError)
  })
  started.catch(() => {}) // observed through `finished` as well
  const finished = Promise.all([records, exited, out.done, err.done]).then(([recs, x]): RunEnd => {
    const first = recs[0]
    const last = recs.at(-1)
    if (!(first?.ok === true && last?.ok === true) && !(stopped && !last)) throw setupError(last, x.code, err.result().data, spawnError)
    const o = out.result()
    const e = err.result()
    const enforcement = first?.ok ? appliedDarwin(prepared.enforcement, first) : { ...prepared.enforcement, notes: [...prepared.enforcement.notes, 'stopped before the launcher reported: nothing of the command ran'] }
    return { exitCode: x.code, signal: x.signal, stdout: o.data, stderr: e.data, ...(all ? { all: Buffer.concat(all) } : {}), truncated: o.truncated || e.truncated, enforcement }
  })
  return {
    pid: child.pid,
    stdin: feedStdin(child, req),
    stdout: copies.out ?? null,
    stderr: copies.err ?? null,
    terminal: null,
    kill: (signal) => group(signal),
    stop: () => {
      stopped = true
      group('SIGKILL')
    },
    started,
    finished,
  }
}
