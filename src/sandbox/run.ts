/**
 * One sandboxed run: spawn, watch the status pipe, enforce timeout/abort by
 * killing the whole process group (the launcher made the child a session
 * leader), and shape the result.
 */
import type { Readable, Writable } from 'node:stream'
import { AbortError } from '../errors.js'
import { signalName } from '../platform/linux/errno.js'
import { launch, setupErrorFrom, type LaunchedChild, type LaunchStatus } from '../platform/linux/launch/launch.js'
import type { Prepared } from '../platform/backend.js'
import type { ResolvedPolicy } from '../profile/resolve.js'
import type { Compat } from '../profile/schema.js'
import type { Enforcement } from './enforcement.js'
import { parseArgv, parseRunOptions, type RunOptions } from './options.js'
import type { SandboxResult } from './result.js'

export type { RunOptions }

export interface SandboxProcess extends Promise<SandboxResult> {
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
  prepare(): { prepared: Prepared; policy: ResolvedPolicy }
}

/** How long the supervisor gets to sweep the command's tree before the group is SIGKILLed. */
const TEARDOWN_GRACE_MS = 1000

/** Monotonic milliseconds. Not `performance.now()`: the global loads node:perf_hooks on first use (~2 ms of a CLI start). */
function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6
}

/**
 * Stop a run for good (timeout, abort): SIGUSR2 asks the launcher's
 * supervisor to kill the command and everything it left behind (also
 * setsid()'d descendants, which a process-group kill misses); in namespace
 * mode it ends bwrap, which takes the pid namespace down. A group SIGKILL
 * follows if the launcher is still there after the grace period.
 *
 * In namespace mode the signal waits for the launcher's first record while
 * bwrap is still setting up: bwrap's child asks for SIGKILL on bwrap's death
 * (--die-with-parent) only some way into its setup, and a bwrap killed before
 * that leaves the child — and the launcher and command it goes on to run —
 * orphaned and running (CI: an abort right after the spawn left `sleep 30`
 * running to its end). Once the launcher reports, that request is in place.
 */
function tearDown(child: LaunchedChild, wrapped: boolean, reported: () => boolean, started: Promise<unknown>): void {
  const stop = () => void child.kill('SIGUSR2', false)
  if (wrapped && !reported()) void started.then(stop, stop)
  else stop()
  const fallback = setTimeout(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL', true)
  }, TEARDOWN_GRACE_MS)
  fallback.unref()
}

function applied(expected: Enforcement, st: LaunchStatus): Enforcement {
  const notes = [...expected.notes]
  if (st.skippedRules) notes.push(`${st.skippedRules} Landlock rule path(s) vanished between planning and launch (fewer rights, not more)`)
  return {
    ...expected,
    landlockAbi: st.landlockAbi ? st.landlockAbi : null,
    seccomp: (st.seccompRules ?? -1) >= 0,
    noNewPrivs: st.noNewPrivs === true,
    capabilitiesDropped: st.capsDropped === true,
    notes,
  }
}

function envList(policy: ResolvedPolicy, extra: Record<string, string> | undefined): string[] {
  return Object.entries({ ...policy.env, ...extra }).map(([k, v]) => `${k}=${v}`)
}

export function startRun(sandbox: Preparer, command: readonly string[], rawOptions: RunOptions | undefined, compat: Compat): SandboxProcess {
  const argv = parseArgv(command)
  const opts = parseRunOptions(rawOptions)
  // Already aborted: nothing is spawned (an abort is not a setup failure).
  if (opts.signal?.aborted) throw new AbortError('aborted before the command started', opts.signal.reason)
  const { prepared, policy } = sandbox.prepare()
  const plan = { ...prepared.template, argv, env: envList(policy, opts.env), compat }
  const started = nowMs()
  const { child, started: status, final, exit } = launch({
    launcher: prepared.launcher,
    file: prepared.file,
    args: prepared.args,
    ...(prepared.bindSources?.length ? { bindSources: prepared.bindSources } : {}),
    plan,
    stdin: opts.stdin,
    stdout: opts.stdout,
    stderr: opts.stderr,
    ...(opts.input !== undefined ? { input: opts.input } : {}),
    ...(opts.maxBuffer ? { maxBuffer: opts.maxBuffer } : {}),
  })
  let timedOut = false
  let aborted = false
  const kill = (signal: NodeJS.Signals = 'SIGTERM') => void child.kill(signal, true)
  let reported = false
  void status.then(() => (reported = true))
  const stop = () => tearDown(child, prepared.file !== prepared.launcher, () => reported, status)
  const timer = opts.timeout ? setTimeout(() => ((timedOut = true), stop()), opts.timeout) : undefined
  const onAbort = () => ((aborted = true), stop())
  opts.signal?.addEventListener('abort', onAbort, { once: true })
  // A kill of ours (timeout, abort) that lands before the launcher reports is
  // that kill, not a setup failure; a launcher error record always is one.
  const stoppedByUs = (st: LaunchStatus | undefined) => st === undefined && (timedOut || aborted)
  const enforcement = status.then((st) => {
    if (stoppedByUs(st)) throw new AbortError(timedOut ? 'timed out before the command started' : 'aborted before the command started')
    if (!st?.ok) throw setupErrorFrom(st, undefined, '')
    return applied(prepared.enforcement, st)
  })
  enforcement.catch(() => {}) // observed through the result as well
  const result = (async (): Promise<SandboxResult> => {
    const [r, { setup: st, exit: cmd }] = await Promise.all([exit, final])
    if (timer) clearTimeout(timer)
    opts.signal?.removeEventListener('abort', onAbort)
    if (!st?.ok && !stoppedByUs(st)) throw setupErrorFrom(st, r.exitCode, r.stderr)
    // Torn down by us without a record from the supervisor (it was stopped
    // mid-setup, or bwrap took the namespace down): the command was killed.
    const stopped = (timedOut || aborted) && !cmd
    const enforced = st?.ok ? applied(prepared.enforcement, st) : { ...prepared.enforcement, notes: [...prepared.enforcement.notes, 'stopped before the launcher reported: nothing of the command ran'] }
    const after = prepared.afterRun?.() ?? []
    return {
      command: argv,
      // The supervisor's record is the command's own wait status (bwrap, in
      // namespace mode, could only pass on 128+N).
      exitCode: cmd ? (cmd.code ?? null) : stopped ? null : r.exitCode,
      signal: cmd ? (cmd.signal !== undefined ? (signalName(cmd.signal) ?? `SIG${cmd.signal}`) : null) : stopped ? 'SIGKILL' : r.signal,
      stdout: r.stdout,
      stderr: r.stderr,
      outputTruncated: r.truncated,
      timedOut,
      aborted,
      durationMs: nowMs() - started,
      enforcement: after.length ? { ...enforced, notes: [...enforced.notes, ...after] } : enforced,
    }
  })()
  return Object.assign(result, {
    pid: child.pid,
    stdin: child.stdin,
    stdout: child.stdout,
    stderr: child.stderr,
    kill,
    enforcement,
  })
}
