/**
 * One sandboxed run, on whichever backend planned it: start it, stop it
 * for good on timeout or abort (the backend takes down everything the
 * command left behind), and shape the result.
 */
import type { Readable, Writable } from 'node:stream'
import { AbortError } from '../errors.js'
import type { PlatformBackend, PreparedLaunch, RunEnd } from '../platform/backend.js'
import type { ResolvedPolicy } from '../profile/resolve.js'
import type { Compat } from '../profile/schema.js'
import type { Enforcement } from '../platform/enforcement.js'
import { parseArgv, parseRunOptions, type ParsedRunOptions, type RunOptions } from './options.js'
import type { SandboxResult } from './result.js'

export type { RunOptions }

export interface SandboxProcess<Output extends string | Buffer = string> extends Promise<SandboxResult<Output>> {
  pid: number | undefined
  stdin: Writable | null
  stdout: Readable | null
  stderr: Readable | null
  /** Signal the whole sandboxed process group. */
  kill(signal?: NodeJS.Signals): void
  /** The launcher's report of what it applied (resolves once the command started). */
  enforcement: Promise<Enforcement>
}

interface Preparer {
  prepare(): { backend: PlatformBackend; prepared: PreparedLaunch; policy: ResolvedPolicy }
}

/** Monotonic milliseconds. Not `performance.now()`: the global loads node:perf_hooks on first use (~2 ms of a CLI start). */
function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6
}

/** How the caller started the run: `spawn()` hands out streams, `run()` only collects. */
export interface RunKind {
  compat: Compat
  streams: boolean
}

/** The run's output in the encoding it asked for. */
function outputOf(end: RunEnd, opts: ParsedRunOptions): Pick<SandboxResult<string | Buffer>, 'stdout' | 'stderr' | 'all'> {
  if (opts.encoding === 'buffer') return { stdout: end.stdout, stderr: end.stderr, ...(end.all ? { all: end.all } : {}) }
  return { stdout: end.stdout.toString('utf8'), stderr: end.stderr.toString('utf8'), ...(end.all ? { all: end.all.toString('utf8') } : {}) }
}

function envList(policy: ResolvedPolicy, extra: Record<string, string> | undefined): string[] {
  return Object.entries({ ...policy.env, ...extra }).map(([k, v]) => `${k}=${v}`)
}

export function startRun(sandbox: Preparer, command: readonly string[], rawOptions: RunOptions | undefined, kind: RunKind): SandboxProcess<string | Buffer> {
  const argv = parseArgv(command)
  const opts = parseRunOptions(rawOptions)
  const stdin = opts.input !== undefined ? 'pipe' : (opts.stdin ?? (kind.streams ? 'pipe' : 'ignore'))
  // Already aborted: nothing is spawned (an abort is not a setup failure).
  if (opts.signal?.aborted) throw new AbortError('aborted before the command started', opts.signal.reason)
  const { backend, prepared, policy } = sandbox.prepare()
  const started = nowMs()
  const run = backend.start(prepared, {
    argv,
    env: envList(policy, opts.env),
    compat: kind.compat,
    stdin,
    stdout: opts.stdout,
    stderr: opts.stderr,
    streams: kind.streams,
    ...(opts.all ? { all: true } : {}),
    ...(opts.input !== undefined ? { input: opts.input } : {}),
    ...(opts.maxBuffer ? { maxBuffer: opts.maxBuffer } : {}),
  })
  let timedOut = false
  let aborted = false
  const timer = opts.timeout ? setTimeout(() => ((timedOut = true), run.stop()), opts.timeout) : undefined
  const onAbort = () => ((aborted = true), run.stop())
  opts.signal?.addEventListener('abort', onAbort, { once: true })
  const enforcement = run.started.then((applied) => {
    if (!applied) throw new AbortError(timedOut ? 'timed out before the command started' : 'aborted before the command started')
    return applied
  })
  enforcement.catch(() => {}) // observed through the result as well
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
        aborted,
        durationMs: nowMs() - started,
        enforcement: end.enforcement,
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
    kill: (signal: NodeJS.Signals = 'SIGTERM') => run.kill(signal),
    enforcement,
  })
}
