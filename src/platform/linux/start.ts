/**
 * Starting a planned Linux launch and reading how it ended: the launcher's
 * setup record becomes the applied enforcement (or a SetupError), its
 * supervisor's exit record the command's own status, and a stop (timeout,
 * abort) goes through the supervisor so nothing the command left behind
 * survives it.
 */
import { statusOf, unconfinedFilesystem, type Enforcement } from '../enforcement.js'
import type { RunEnd, StartedRun, StartRequest } from '../backend.js'
import { signalName } from '../../native/errno.js'
import { launch, setupErrorFrom, type Launched, type LaunchedChild, type LaunchStatus } from './launch/launch.js'
import type { RunCgroup } from './cgroup/run-cgroup.js'
import { prepareAhead } from './cgroup/ahead.js'
import type { LinuxPrepared } from './prepared.js'
import { CONNECT_SUPERVISED, METADATA_SUPERVISED } from './landlock/plan.js'

/** How long the supervisor gets to sweep the command's tree before the group is SIGKILLed. */
const TEARDOWN_GRACE_MS = 1000

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

const METADATA_REFUSED =
  'file-metadata calls (chmod, chown, utimes, xattrs, attribute flags) are refused everywhere, write roots included: no seccomp listener could be installed for the supervisor (cordon inside a cordon sandbox, or a container manager holds one) — nothing outside the write roots can be changed, but neither can files inside them'

const CONNECT_REFUSED =
  "connect() is refused everywhere, the proxy included (EPERM): no seccomp listener could be installed for the supervisor that checks each connect's address — no host is reachable, through the proxy or not"

/**
 * The planned report with what the launcher says it applied. A mechanism
 * planned but not applied at launch (the kernel or a parent sandbox changed
 * since planning; only a best-effort launch gets this far) is taken out of
 * `mechanisms`, listed as missing, and the status recomputed — so a run whose
 * filesystem ended up unconfined says `none`.
 */
export function applied(expected: Enforcement, st: LaunchStatus): Enforcement {
  const landlockAbi = st.landlockAbi ? st.landlockAbi : null
  const seccomp = (st.seccompRules ?? -1) >= 0
  // No listener: the supervisor decides nothing, every metadata call is refused.
  const notes = st.metadata === 0 ? expected.notes.filter((n) => n !== METADATA_SUPERVISED && n !== CONNECT_SUPERVISED) : [...expected.notes]
  if (st.skippedRules) notes.push(`${st.skippedRules} Landlock rule path(s) vanished between planning and launch (fewer rights, not more)`)
  if (st.metadata === 0 && expected.notes.includes(METADATA_SUPERVISED)) notes.push(METADATA_REFUSED)
  if (st.metadata === 0 && expected.notes.includes(CONNECT_SUPERVISED)) notes.push(CONNECT_REFUSED)
  const lost = expected.mechanisms.filter((m) => (m === 'landlock' && landlockAbi === null) || (m === 'seccomp' && !seccomp))
  const metadataCalls = st.metadata === 1 ? 'supervised' : st.metadata === 0 ? 'refuse-all' : undefined
  const e: Enforcement = {
    ...expected,
    platform: { os: 'linux', landlockAbi, seccomp, noNewPrivs: st.noNewPrivs === true, capabilitiesDropped: st.capsDropped === true, ...(metadataCalls ? { metadataCalls } : {}) },
    notes,
  }
  if (lost.length === 0) return e
  e.mechanisms = expected.mechanisms.filter((m) => !lost.includes(m))
  e.filesystem = { ...expected.filesystem, confined: expected.filesystem.confined && (e.mechanisms.includes('landlock') || e.mechanisms.includes('namespaces')) }
  e.missing = [...expected.missing, ...lost.map((m) => ({ protection: m, explicit: true, reason: `${m} was planned but could not be applied at launch (the host changed since planning)` }))]
  if (!e.filesystem.confined) e.missing.push(unconfinedFilesystem('Landlock could not be applied at launch', 'find what blocks Landlock here (a parent sandbox, the kernel)'))
  e.status = statusOf(e)
  return e
}

/** Start the launch; the run's cgroup files go with the request, and the caller keeps none. */
function launchPrepared(prepared: LinuxPrepared, req: StartRequest): Launched {
  // A run's own cwd changes where the command starts, nothing the plan enforces.
  const plan = { ...prepared.template, argv: req.argv, env: req.env, compat: prepared.landlockRequired ? ('hard' as const) : req.compat, ...(req.cwd ? { cwd: req.cwd } : {}) }
  try {
    const launched = launch({
      launcher: prepared.launcher,
      ...(prepared.cgroup ? { cgroupProcs: prepared.cgroup.procs(), cgroupOwner: prepared.cgroup } : {}),
      file: prepared.file,
      args: prepared.args,
      ...(prepared.bindSources?.length ? { bindSources: prepared.bindSources } : {}),
      plan,
      stdin: req.stdin,
      stdout: req.stdout,
      stderr: req.stderr,
      ...(req.input !== undefined ? { input: req.input } : {}),
      ...(req.maxBuffer ? { maxBuffer: req.maxBuffer } : {}),
      ...(req.all ? { all: true } : {}),
      streams: req.streams === true,
      ...(req.onOutput ? { onOutput: req.onOutput } : {}),
      ...(req.tty ? { tty: req.tty } : {}),
    })
    // The next run's cgroup: this one's once it is over, or one made while a long one runs (cgroup/ahead.ts).
    if (prepared.cgroup) prepareAhead(launched.zygote, prepared.cgroup)
    return launched
  } finally {
    prepared.cgroup?.closeProcs() // the zygote's child has its own copies
  }
}

/**
 * Whatever the end (exit, stop, setup failure), nothing of the run outlives
 * it: its cgroup is killed whole and emptied before the end is reported,
 * with what its limits counted; the empty directories are removed right
 * after, off the caller's path (an rmdir waits for the kernel).
 */
function endInCgroup(ended: Promise<RunEnd>, cgroup: RunCgroup | undefined): Promise<RunEnd> {
  if (!cgroup) return ended
  // end(): everything in it killed and gone, its counts read; its directories are removed right after (run-cgroup.ts).
  return ended.then(
    async (end) => ({ ...end, limitEvents: await cgroup.end() }),
    async (e: unknown) => {
      await cgroup.end()
      throw e
    },
  )
}

export function startLinux(prepared: LinuxPrepared, req: StartRequest): StartedRun {
  const cgroup = prepared.cgroup
  const launched = launchPrepared(prepared, req)
  const { child, started: status, final, exit } = launched
  // Once the launcher (or bwrap) has exited, whatever is left in the run's
  // cgroup was left behind: killed now, so that a process still holding the
  // command's stdout cannot keep the run from ending.
  if (cgroup) void launched.exited.then(() => cgroup.kill())
  let stopped = false
  let reported = false
  void status.then(() => (reported = true))
  // A stop of ours that lands before the launcher reports is that stop, not
  // a setup failure; a launcher error record always is one.
  const stoppedFirst = (st: LaunchStatus | undefined) => st === undefined && stopped
  const ended = Promise.all([exit, final]).then(([r, { setup: st, exit: cmd }]): RunEnd => {
    if (!st && !stopped) throw prepared.namespaceFailure?.(r.stderr.toString('utf8')) ?? setupErrorFrom(st, r.exitCode, r.stderr)
    if (!st?.ok && !stoppedFirst(st)) throw setupErrorFrom(st, r.exitCode, r.stderr)
    // Torn down by us without a record from the supervisor (it was stopped
    // mid-setup, or bwrap took the namespace down): the command was killed.
    const killed = stopped && !cmd
    const enforced = st?.ok ? applied(prepared.enforcement, st) : { ...prepared.enforcement, notes: [...prepared.enforcement.notes, 'stopped before the launcher reported: nothing of the command ran'] }
    const after = prepared.afterRun?.() ?? []
    return {
      // The supervisor's record is the command's own wait status (bwrap, in
      // namespace mode, could only pass on 128+N).
      exitCode: cmd ? (cmd.code ?? null) : killed ? null : r.exitCode,
      signal: cmd ? (cmd.signal !== undefined ? (signalName(cmd.signal) ?? `SIG${cmd.signal}`) : null) : killed ? 'SIGKILL' : r.signal,
      stdout: r.stdout,
      stderr: r.stderr,
      ...(r.all ? { all: r.all } : {}),
      truncated: r.truncated,
      enforcement: after.length ? { ...enforced, notes: [...enforced.notes, ...after] } : enforced,
    }
  })
  const finished = endInCgroup(ended, cgroup)
  const started = status.then((st) => {
    if (stoppedFirst(st)) return undefined
    // No record at all: bwrap (or the spawn) failed before the launcher
    // ran; `finished` reads its stderr and says why.
    if (!st) return finished.then(() => undefined)
    if (!st.ok) throw setupErrorFrom(st, undefined, '')
    return applied(prepared.enforcement, st)
  })
  started.catch(() => {}) // observed through `finished` as well
  return {
    pid: child.pid,
    stdin: child.stdin,
    stdout: child.stdout,
    stderr: child.stderr,
    terminal: child.terminal,
    kill: (signal) => void child.kill(signal, true),
    stop: () => {
      stopped = true
      tearDown(child, prepared.file !== prepared.launcher, () => reported, status)
    },
    started,
    finished,
  }
}
