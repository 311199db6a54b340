/**
 * One sandboxed run, on whichever backend planned it: start it, stop it
 * for good on timeout or abort (the backend takes down everything the
 * command left behind), and shape the result.
 *
 * The stop contract is execa's, as data: a timeout resolves with
 * `timedOut: true`, an abort with `isCanceled: true` — also when the signal
 * was aborted before the call (nothing is started then) or fired while the
 * launcher was still setting up. Only a run that cannot be set up rejects,
 * with a typed error (PolicyError, UnsupportedError, SetupError).
 */
import type { Readable, Writable } from 'node:stream'
import type { CommandTerminal, PlatformBackend, PreparedLaunch, RunEnd } from '../platform/backend.js'
import type { ResolvedPolicy } from '../profile/resolve.js'
import type { Compat } from '../profile/schema.js'
import type { Enforcement } from '../platform/enforcement.js'
import { parseArgv, parseRunOptions, type OutputListener, type ParsedRunOptions, type RunOptions } from './options.js'
import type { SandboxResult } from './result.js'
import { canceledBeforeStart } from './canceled.js'

export type { RunOptions }

export interface SandboxProcess<Output extends string | Buffer = string> extends Promise<SandboxResult<Output>> {
  pid: number | undefined
  stdin: Writable | null
  stdout: Readable | null
  stderr: Readable | null
  /**
   * The command's own terminal (`tty` runs), else null: write keys, resize
   * the window, end the input. Its output is `stdout` in the result, and
   * reaches `terminal.onData` listeners as it is read.
   */
  terminal: CommandTerminal | null
  /** Signal the whole sandboxed process group. */
  kill(signal?: NodeJS.Signals): void
  /**
   * The launcher's report of what it applied, once the command started. A
   * run stopped before that (canceled, timed out) resolves with the planned
   * report and a note that nothing ran; only a SetupError rejects.
   */
  enforcement: Promise<Enforcement>
}

/** What a run needs from its sandbox. */
export interface Preparer {
  /** Resolve and plan one launch (typed errors before anything runs). */
  prepare(): { backend: PlatformBackend; prepared: PreparedLaunch; policy: ResolvedPolicy }
  /** The same checks and report without creating anything (a run canceled before it starts). */
  preview(): { policy: ResolvedPolicy; enforcement: Enforcement }
  /** With a network allowlist: marks where this run's proxy requests start (undefined without one). */
  networkRun?(): { finish(e: Enforcement): Enforcement } | undefined
  /** A run's own cwd, canonical and checked against what the launch enforces. */
  runCwd(raw: string, policy: ResolvedPolicy, enforcement: Enforcement): string
}

/** How the caller started the run: `spawn()` hands out streams, `run()` only collects. */
export interface RunKind {
  compat: Compat
  streams: boolean
}

/** Monotonic milliseconds. Not `performance.now()`: the global loads node:perf_hooks on first use (~2 ms of a CLI start). */
function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6
}

/**
 * The caller's output listener as the backends call it: from inside a
 * read, so it never throws there. A listener that throws is not called
 * again, and its error surfaces as an uncaught exception outside the read
 * (as from a stream's 'data' handler) while the run and its collection go on.
 */
function guarded(listener: OutputListener | undefined): OutputListener | undefined {
  if (!listener) return undefined
  let failed = false
  return (stream, chunk) => {
    if (failed) return
    try {
      listener(stream, chunk)
    } catch (e) {
      failed = true
      queueMicrotask(() => {
        throw e
      })
    }
  }
}

function envList(policy: ResolvedPolicy, extra: Record<string, string> | undefined): string[] {
  return Object.entries({ ...policy.env, ...extra }).map(([k, v]) => `${k}=${v}`)
}

/** The run's output in the encoding it asked for. */
function outputOf(end: RunEnd, opts: ParsedRunOptions): Pick<SandboxResult<string | Buffer>, 'stdout' | 'stderr' | 'all'> {
  if (opts.encoding === 'buffer') return { stdout: end.stdout, stderr: end.stderr, ...(end.all ? { all: end.all } : {}) }
  return { stdout: end.stdout.toString('utf8'), stderr: end.stderr.toString('utf8'), ...(end.all ? { all: end.all.toString('utf8') } : {}) }
}

export function startRun(sandbox: Preparer, command: readonly string[], rawOptions: RunOptions | undefined, kind: RunKind): SandboxProcess<string | Buffer> {
  const argv = parseArgv(command)
  const opts = parseRunOptions(rawOptions)
  const stdin = opts.input !== undefined ? 'pipe' : (opts.stdin ?? (kind.streams ? 'pipe' : 'ignore'))
  if (opts.signal?.aborted) {
    // Nothing is created or spawned; bad input is still a typed error.
    const { policy, enforcement } = sandbox.preview()
    if (opts.cwd !== undefined) sandbox.runCwd(opts.cwd, policy, enforcement)
    return canceledBeforeStart(argv, enforcement, opts, { stdin, streams: kind.streams })
  }
  const { backend, prepared, policy } = sandbox.prepare()
  const cwd = opts.cwd !== undefined ? sandbox.runCwd(opts.cwd, policy, prepared.enforcement) : undefined
  const started = nowMs()
  const network = sandbox.networkRun?.()
  const onOutput = guarded(opts.onOutput)
  const run = backend.start(prepared, {
    argv,
    env: envList(policy, opts.env),
    compat: kind.compat,
    stdin,
    stdout: opts.stdout,
    stderr: opts.stderr,
    streams: kind.streams,
    ...(cwd !== undefined ? { cwd } : {}),
    ...(opts.all ? { all: true } : {}),
    ...(opts.input !== undefined ? { input: opts.input } : {}),
    ...(opts.maxBuffer ? { maxBuffer: opts.maxBuffer } : {}),
    ...(opts.tty ? { tty: opts.tty } : {}),
    ...(onOutput && !opts.tty ? { onOutput } : {}),
  })
  if (onOutput && run.terminal) run.terminal.onData((chunk) => onOutput('stdout', chunk))
  // Whichever stop comes first is the one reported: never both flags.
  let timedOut = false
  let isCanceled = false
  const timer = opts.timeout ? setTimeout(() => isCanceled || ((timedOut = true), run.stop()), opts.timeout) : undefined
  const onAbort = () => timedOut || ((isCanceled = true), run.stop())
  opts.signal?.addEventListener('abort', onAbort, { once: true })
  const enforcement = run.started.then((applied) => applied ?? run.finished.then((end) => end.enforcement))
  enforcement.catch(() => {}) // a SetupError is observed through the result as well
  const result = (async (): Promise<SandboxResult<string | Buffer>> => {
    try {
      const end = await run.finished
      return {
        command: argv,
        exitCode: end.exitCode,
        signal: end.signal,
        ...outputOf(end, opts),
        outputTruncated: end.truncated,
        timedOut,
        isCanceled,
        durationMs: nowMs() - started,
        enforcement: network ? network.finish(end.enforcement) : end.enforcement,
        ...(end.limitEvents ? { limitEvents: end.limitEvents } : {}),
      }
    } finally {
      if (timer) clearTimeout(timer)
      opts.signal?.removeEventListener('abort', onAbort)
    }
  })()
  return Object.assign(result, {
    pid: run.pid,
    stdin: run.stdin,
    stdout: run.stdout,
    stderr: run.stderr,
    terminal: run.terminal,
    kill: (signal: NodeJS.Signals = 'SIGTERM') => run.kill(signal),
    enforcement,
  })
}
