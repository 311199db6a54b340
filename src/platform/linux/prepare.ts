/**
 * Planning a Linux launch: choose the mode, build the plan, name what to spawn.
 *
 * - `landlock`: the launcher is spawned directly (Landlock + seccomp).
 * - `namespaces`: bwrap is spawned and runs the same launcher inside new
 *   namespaces (bwrap-mode.ts). When namespaces are unavailable the request
 *   falls back to Landlock with a missing `namespaces` entry that the caller
 *   named explicitly — so compat `hard` and the default refuse, naming the
 *   cause and the fix, and only `best-effort` runs without them.
 * - `auto`: namespaces when the probe says they work, else Landlock; the
 *   report says which mode ran, why, and what the fallback lacks.
 */
import { SetupError } from '../../errors.js'
import type { ResolvedPolicy } from '../../profile/resolve.js'
import { launcherFor } from '../launcher-path.js'
import { zygoteFor, type Zygote } from './launch/zygote.js'
import type { SandboxMode } from '../../profile/schema.js'
import type { Enforcement } from '../enforcement.js'
import { statusOf } from '../enforcement.js'
import { unsandboxedEnforcement } from '../plan-common.js'
import { buildLandlockPlan, rlimits, type PlanContext } from './landlock/plan.js'
import { probeHost } from './probe.js'
import { LAUNCHER_ARGS } from './launch/launch.js'
import type { LinuxPrepared as Prepared } from './prepared.js'
import { bwrapInWritableRoot } from './namespaces/bwrap-locate.js'
import { buildNamespacePlan, type NamespacePlan } from './namespaces/bwrap-mode.js'
import { acquirePlaceholder, releasePlaceholder } from './namespaces/bwrap-placeholders.js'
import { forgetNamespaceProbe, probeNamespaces, type NamespaceSupport } from './namespaces/bwrap-probe.js'
import { diagnoseBwrapFailure, mountChurn, type NamespaceCause } from './namespaces/bwrap-diagnose.js'
import { attachCgroup } from './cgroup/attach.js'

export { releaseIdlePlaceholders } from './namespaces/bwrap-placeholders.js'

export interface LinuxContext extends Omit<PlanContext, 'probe'> {
  /** Absolute path of bwrap to use instead of /usr/bin/bwrap, /usr/local/bin/bwrap. */
  bwrap?: string | undefined
}

export interface PrepareOptions {
  /** Create the host-side placeholders a namespace-mode launch needs (false for a report). */
  materialize?: boolean
}

const releases = new WeakMap<Prepared, () => void>()

/** Give back what a launch held (placeholder leases, its cgroup if the run never got to remove it) once its command has exited. */
export function releasePrepared(prepared: Prepared): void {
  const release = releases.get(prepared)
  releases.delete(prepared)
  release?.()
  prepared.cgroup?.teardownSync()
}

/**
 * Every sandboxed launch runs in a cgroup of its own where the caller may
 * make one (cgroup/attach.ts); the report says which limits are in force,
 * and what could not be applied is listed as missing.
 */
/** `zygote`: for a launch (the cgroup is made now), the zygote it goes to; none for a plan only. */
function withCgroup(prepared: Prepared, policy: ResolvedPolicy, zygote: Zygote | undefined): Prepared {
  const a = attachCgroup(policy.limits, policy.writeRoots, zygote !== undefined, zygote)
  const e = prepared.enforcement
  e.limits = a.limits
  if (a.limits.cgroup) e.mechanisms.push('cgroup')
  e.missing.push(...a.missing)
  e.notes.push(...a.notes)
  e.status = statusOf(e)
  if (a.cgroup) prepared.cgroup = a.cgroup
  return prepared
}

/** The probe's answer, plus the per-policy rule: bwrap must not lie in a writable root. */
export function namespaceSupport(policy: ResolvedPolicy, bwrap?: string): NamespaceSupport {
  const ns = probeNamespaces(bwrap)
  if (!ns.ok) return ns
  const root = bwrapInWritableRoot(ns.bwrap, policy.writeRoots)
  if (!root) return ns
  return {
    ok: false,
    cause: 'bwrap-in-writable-root',
    reason: `bwrap ${ns.bwrap.path} lies inside the writable root ${root}: the sandboxed command could replace it and the next launch would run the replacement unconfined`,
    fix: 'use a bwrap outside every writable root (/usr/bin/bwrap from the bubblewrap package)',
  }
}

function materialize(plan: NamespacePlan): Prepared {
  const leases: string[] = []
  try {
    for (const dir of plan.placeholders) leases.push(acquirePlaceholder(dir))
  } catch (err) {
    for (const l of leases) releasePlaceholder(l)
    throw err
  }
  if (leases.length) releases.set(plan.prepared, () => leases.forEach(releasePlaceholder))
  return plan.prepared
}

function launcherPrepared(ctx: PlanContext, modeReason: string): Prepared {
  const { template, enforcement } = buildLandlockPlan(ctx)
  enforcement.modeReason = modeReason
  const launcher = launcherFor(ctx.policy.writeRoots)
  const landlockRequired = template.landlock !== null && !ctx.allowUnconfinedFilesystem
  return { launcher, file: launcher, args: [...LAUNCHER_ARGS], template, enforcement, landlockRequired }
}

/** Landlock instead of namespaces: say why, what is lost, and how to get namespaces. */
function fallback(ctx: PlanContext, mode: 'auto' | 'namespaces', ns: Extract<NamespaceSupport, { ok: false }>): Prepared {
  const head = mode === 'auto' ? 'auto' : 'namespaces requested'
  const prepared = launcherPrepared(ctx, `${head}: namespace mode is unavailable (${ns.cause}: ${ns.reason}); ran Landlock + seccomp only`)
  const e: Enforcement = prepared.enforcement
  for (const m of e.missing) if (m.protection === 'protected-paths') m.fix = ns.fix
  e.missing.unshift({
    protection: 'namespaces',
    explicit: mode === 'namespaces',
    reason: `namespace mode is unavailable: ${ns.reason}. Landlock-only mode lacks read-only protected paths inside write roots and pid/ipc/uts/network isolation (host processes and SysV IPC are visible; the launcher's supervisor, not a pid namespace, kills what the command leaves behind)`,
    fix: ns.fix,
  })
  e.status = statusOf(e)
  return prepared
}

export function prepareLinux(mode: SandboxMode, ctx: LinuxContext, opts: PrepareOptions = {}): Prepared {
  if (ctx.policy.unsandboxed) return unsandboxed(ctx.policy)
  // A launch follows: have the zygote for this launcher start now, so its
  // exec and first fork run on another CPU while the plan below is built
  // (a one-shot CLI otherwise waits for them after planning).
  const zygote = opts.materialize !== false ? zygoteFor(launcherFor(ctx.policy.writeRoots)) : undefined
  return withCgroup(prepareConfined(mode, ctx, opts), ctx.policy, zygote)
}

function prepareConfined(mode: SandboxMode, ctx: LinuxContext, opts: PrepareOptions): Prepared {
  const probe = probeHost()
  const full: PlanContext = { policy: ctx.policy, explicit: ctx.explicit, probe, allowUnconfinedFilesystem: ctx.allowUnconfinedFilesystem === true }
  if (mode === 'landlock') return launcherPrepared(full, 'requested: Landlock + seccomp in the launcher')
  const ns = namespaceSupport(ctx.policy, ctx.bwrap)
  if (!ns.ok) return fallback(full, mode, ns)
  const why = mode === 'auto' ? 'auto: bubblewrap and unprivileged user namespaces work here' : 'requested'
  const plan = buildNamespacePlan(full, ns.bwrap, `${why}: namespaces (bwrap) + Landlock and seccomp in the launcher`)
  const targets = plan.mountTargets
  plan.prepared.namespaceFailure = (stderr) => churnFailure(stderr, targets) ?? namespaceFailure(stderr, ctx.bwrap)
  return opts.materialize === false ? plan.prepared : materialize(plan)
}

/**
 * A mount target changed on the host between planning and launch (another
 * process created or removed a denied path): nothing ran, and a fresh plan
 * sees the path as it is now.
 */
function churnFailure(stderr: string, targets: readonly string[]): SetupError | undefined {
  const c = mountChurn(stderr, targets)
  if (!c) return undefined
  const detail = `${c.path} changed on the host between planning and launch (bwrap said: ${c.said}); nothing ran — planning again sees it as it is now`
  return new SetupError('mounts', 'mount', c.errno, c.code, detail, { hostChanged: true })
}

/** errno of each cause that means "namespaces cannot be created here now". */
const NAMESPACE_ERRNO: Partial<Record<NamespaceCause, [number, string]>> = {
  apparmor: [1, 'EPERM'],
  container: [1, 'EPERM'],
  proc: [1, 'EPERM'],
  'userns-clone-disabled': [1, 'EPERM'],
  'max-user-namespaces': [28, 'ENOSPC'],
}

/**
 * bwrap failed before the launcher said anything. When its words say the
 * namespaces themselves could not be made, the host changed since the probe
 * (a parent sandbox's seccomp filter, AppArmor, the user-namespace limit):
 * forget the probe and say which cause and fix — never `EUNKNOWN (errno 0)`.
 */
function namespaceFailure(stderr: string, bwrap: string | undefined): SetupError | undefined {
  const d = diagnoseBwrapFailure(stderr, probeHost())
  const errno = NAMESPACE_ERRNO[d.cause]
  if (!errno) return undefined
  forgetNamespaceProbe(bwrap)
  return new SetupError('namespaces', 'bwrap', errno[0], errno[1], `namespace creation failed at launch although it worked when probed (${d.cause}): ${d.reason}; fix: ${d.fix}. The probe is forgotten: the next plan probes again (mode 'auto' then falls back to Landlock mode)`, { hostChanged: true })
}

/**
 * A profile with `unsandboxed: true` still goes through the launcher (new
 * session, closed fds, env policy, rlimits, no capabilities, no_new_privs)
 * but without Landlock or seccomp. Refused when anything is denied for
 * reading: a denied read is never dropped.
 */
function unsandboxed(policy: ResolvedPolicy): Prepared {
  const enforcement = unsandboxedEnforcement(policy, { os: 'linux', landlockAbi: null, seccomp: false, noNewPrivs: true, capabilitiesDropped: true }, ['no filesystem, network or syscall confinement'])
  const launcher = launcherFor(policy.writeRoots)
  return {
    launcher,
    file: launcher,
    args: [...LAUNCHER_ARGS],
    template: { v: 1, cwd: policy.cwd, rlimits: rlimits(policy), landlock: null, seccomp: null },
    enforcement,
  }
}
