/**
 * One attempt: a fresh sandbox with the attempt's options, one run, then
 * denial detection against that attempt's own enforcement report. A
 * sandbox that cannot be set up (SetupError, UnsupportedError) is recorded
 * as the attempt's error — it is not a denial and is never escalated.
 */
import type { Readable } from 'node:stream'
import { CordonError, SetupError } from '../errors.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import type { RunOptions, SandboxOptions } from '../sandbox/options.js'
import type { SandboxResult } from '../sandbox/result.js'
import type { Enforcement } from '../platform/enforcement.js'
import type { ApprovalRecord } from './approval/approval.js'
import { detectDenials, type Denial } from './denial/denial.js'
import type { Widening } from './escalation/widen.js'
import { OutputCollector, OutputRelay, type OutputKeep, type OutputListener, type OutputTruncation } from './output.js'

/** A run's result as the orchestrator reports it: stdout/stderr within the request's maxBuffer, and what was cut. */
export interface AttemptResult extends SandboxResult {
  /** Present when output went past maxBuffer: per stream, how many bytes were dropped and where. */
  readonly truncation?: OutputTruncation
}

/** How an attempt's output is streamed and kept (the request's onOutput, maxBuffer, keep). */
export interface OutputSpec {
  readonly listener: OutputListener | undefined
  readonly maxBuffer: number
  readonly keep: OutputKeep
}

export interface AttemptRecord {
  readonly index: 1 | 2
  readonly sandbox: {
    /** The createSandbox() options this attempt ran with. */
    readonly options: SandboxOptions
    /** What was added to the profile for this attempt (absent: the profile as is). */
    readonly widening?: Widening
    /** What was enforced (from the run, or planned when the run did not start). */
    readonly enforcement?: Enforcement
  }
  /** Who let this attempt run. */
  readonly approval: ApprovalRecord
  readonly result?: AttemptResult
  readonly error?: { readonly name: string; readonly code: string; readonly message: string }
  /** Sandbox denials detected in this attempt, with evidence. */
  readonly denials: readonly Denial[]
}

export interface AttemptSpec {
  readonly index: 1 | 2
  readonly options: SandboxOptions
  readonly widening: Widening | undefined
  readonly approval: ApprovalRecord
  /** The command as decided (for denial detection). */
  readonly command: readonly string[]
  /** The directory it runs in; when it differs from the sandbox cwd the command is wrapped in `cd`. */
  readonly cwd: string
  readonly run: RunOptions
  readonly output: OutputSpec
  /** The outcome's notes (an onOutput callback that failed is noted here). */
  readonly notes: string[]
  readonly createSandbox: (options: SandboxOptions) => Sandbox
}

export async function runAttempt(spec: AttemptSpec): Promise<AttemptRecord> {
  const base = { index: spec.index, approval: spec.approval }
  const sandboxInfo = { options: spec.options, ...(spec.widening ? { widening: spec.widening } : {}) }
  let sb: Sandbox | undefined
  try {
    sb = spec.createSandbox(spec.options)
    const argv = sb.cwd === spec.cwd ? spec.command : inDirectory(spec.cwd, spec.command)
    const result = await streamed(sb, argv, spec).catch((e: unknown) => {
      // The host changed between planning and launch and nothing ran (a
      // path vanished, namespaces stopped working): plan again, once, as
      // sandbox.run() does.
      if (!(e instanceof SetupError && e.hostChanged) || spec.run.signal?.aborted) throw e
      spec.notes.push(`attempt ${spec.index}: ${e.message}; planned again`)
      return streamed(sb!, argv, spec)
    })
    const shown = { ...result, command: [...spec.command] }
    const denials = detectDenials({ result: shown, cwd: spec.cwd, command: spec.command })
    return { ...base, sandbox: { ...sandboxInfo, enforcement: result.enforcement }, result: shown, denials }
  } catch (e) {
    const error = e instanceof CordonError ? { name: e.name, code: e.code, message: e.message } : { name: 'Error', code: 'E_UNKNOWN', message: String((e as Error)?.message ?? e) }
    const enforcement = tryReport(sb)
    return { ...base, sandbox: { ...sandboxInfo, ...(enforcement ? { enforcement } : {}) }, error, denials: [] }
  } finally {
    sb?.close()
  }
}

/**
 * Run through the sandbox's spawn(): every chunk goes to the caller's
 * listener as it arrives and into a collector that keeps maxBuffer bytes
 * per stream (head, tail or both). The sandbox keeps its own copy within
 * the same bound; the result shows the collector's. stdin is given
 * explicitly (the request's input, else none), whatever spawn's default.
 */
async function streamed(sb: Sandbox, argv: readonly string[], spec: AttemptSpec): Promise<AttemptResult> {
  const { maxBuffer, keep, listener } = spec.output
  const relay = new OutputRelay(spec.index, listener)
  const out = new OutputCollector('stdout', maxBuffer, keep)
  const err = new OutputCollector('stderr', maxBuffer, keep)
  const stdin = spec.run.input !== undefined ? 'pipe' : 'ignore'
  const child = sb.spawn(argv[0] as string, argv.slice(1), { ...spec.run, stdin, stdout: 'pipe', stderr: 'pipe', maxBuffer, encoding: 'utf8' })
  const ended = Promise.all([follow(child.stdout, out, relay), follow(child.stderr, err, relay)])
  try {
    const result = await child
    await ended
    const o = out.finish()
    const e = err.finish()
    const truncation: OutputTruncation | undefined = o.cut || e.cut ? { ...(o.cut ? { stdout: o.cut } : {}), ...(e.cut ? { stderr: e.cut } : {}) } : undefined
    return { ...result, stdout: o.text, stderr: e.text, outputTruncated: truncation !== undefined, ...(truncation ? { truncation } : {}) }
  } finally {
    if (relay.failure) spec.notes.push(relay.failure)
  }
}

/** Feed one output stream to the collector and the relay; resolves when it has ended. */
function follow(stream: Readable | null, collector: OutputCollector, relay: OutputRelay): Promise<void> {
  if (!stream) return Promise.resolve()
  return new Promise((resolve) => {
    let done = false
    stream.on('data', (d: Buffer | string) => {
      const b = typeof d === 'string' ? Buffer.from(d) : d
      collector.push(b)
      relay.data(collector.stream, b)
    })
    const finish = () => {
      if (done) return
      done = true
      relay.end(collector.stream)
      resolve()
    }
    stream.once('end', finish)
    stream.once('close', finish)
    stream.once('error', finish)
  })
}

/** Run argv in `dir` inside the same sandbox: `sh -c 'cd -- "$1" && shift && exec "$@"'`. */
function inDirectory(dir: string, argv: readonly string[]): string[] {
  return ['/bin/sh', '-c', 'cd -- "$1" && shift && exec "$@"', 'cordon-cd', dir, ...argv]
}

function tryReport(sb: Sandbox | undefined): Enforcement | undefined {
  try {
    return sb?.report()
  } catch {
    return undefined
  }
}
