/**
 * Namespace mode: bwrap builds the namespaces and the filesystem view, then
 * runs the cordon launcher inside, which still applies no_new_privs,
 * Landlock and seccomp (defence in depth: a bwrap setup bug or a kernel
 * mount bug does not open the filesystem by itself).
 *
 * Landlock inside gets plain roots — read the read roots, write the write
 * roots and the private tmpfs dirs — and no "narrowing" around denied paths:
 * the mounts already hide those, so directories stay listable and writable
 * as the profile says. Landlock's job here is a second wall for writes and
 * for read roots narrower than `/` (the view is always `--ro-bind / /`; the
 * launcher and the command's interpreters must be reachable).
 */
import { launcherFor } from '../../launcher-path.js'
import type { ResolvedPolicy } from '../../../profile/resolve.js'
import { isWithin } from '../../../profile/paths.js'
import type { Enforcement, MissingProtection } from '../../enforcement.js'
import { statusOf } from '../../enforcement.js'
import type { LinuxPrepared } from '../prepared.js'
import { bwrapArgs, fdSources } from './bwrap-args.js'
import { planMounts, type MountPlan } from './bwrap-mounts.js'
import type { BwrapInfo } from './bwrap-probe.js'
import { protectAndPlan, removeCreated } from './bwrap-protect.js'
import { DEVICE_FILES, type LandlockRule } from '../landlock/landlock-rules.js'
import { commonEnforcement, forwarderProgram, globsNote, landlockUnavailable, launcherTemplate, localSocketsReachable, seccompUnavailable, type PlanContext, type PlanTemplate } from '../landlock/plan.js'

export interface NamespacePlan {
  prepared: LinuxPrepared
  /** Host directories to create, with a lease, right before the launch. */
  placeholders: string[]
  /** Every path the plan mounts something on (for telling host churn from other bwrap failures). */
  mountTargets: string[]
}

/** Landlock inside the namespaces: plain roots (the mounts do the masking). */
export function namespaceLandlockRules(policy: ResolvedPolicy, privateDirs: readonly string[]): LandlockRule[] {
  const rules: LandlockRule[] = policy.readRoots.map((path) => ({ path, access: ['read'] }))
  for (const path of [...policy.writeRoots, ...privateDirs, '/dev/shm']) rules.push({ path, access: ['write'] })
  for (const dev of DEVICE_FILES) if (!policy.denyRead.some((d) => isWithin(dev, d))) rules.push({ path: dev, access: ['dev'] })
  return rules
}

function missingFor(ctx: PlanContext): MissingProtection[] {
  const { policy, probe } = ctx
  const missing: MissingProtection[] = []
  if (!probe.seccomp) missing.push(seccompUnavailable(probe))
  if (probe.landlockAbi === null && !policy.readAll) missing.push(landlockUnavailable(probe, `read roots narrower than / (${policy.readRoots.join(', ')}) are enforced by Landlock only`))
  if (policy.network === 'off' && !probe.seccomp) {
    missing.push({ protection: 'network', explicit: false, reason: 'the network namespace blocks IP and abstract unix sockets, but without seccomp the pathname unix sockets of host daemons stay reachable', fix: 'a kernel with CONFIG_SECCOMP_FILTER' })
  }
  // The host's network namespace: only seccomp keeps its unix sockets (abstract ones included) out.
  if (policy.network === 'inet' && !probe.seccomp) missing.push(localSocketsReachable('pathname and abstract'))
  return missing
}

function notesFor(ctx: PlanContext, bwrap: BwrapInfo, mounts: MountPlan, protNotes: string[]): string[] {
  const notes = [
    `bubblewrap ${bwrap.version ?? '(unknown version)'} at ${bwrap.path}: new user, pid, ipc, uts${bwrap.features.cgroupTry ? ', cgroup (where allowed)' : ''}${ctx.policy.network === 'off' || ctx.policy.network === 'proxy' ? ', network' : ''} namespaces; the whole tree dies with the caller`,
    ...(ctx.policy.network === 'proxy' ? [`network allowlist: the sandbox's network namespace has loopback only; its one way out is cordon's forwarder on 127.0.0.1:${ctx.policy.proxyPort ?? 'PORT'} (started by the launcher, confined by Landlock, dies with the run), relaying to the proxy's unix socket ${ctx.policy.proxySocket ?? ''}`] : []),
    ctx.probe.landlockAbi !== null ? `Landlock ABI ${ctx.probe.landlockAbi} inside as a second wall` : 'Landlock is unavailable: the mounts alone confine the filesystem',
    ...bwrap.warnings.map((w) => `bwrap: ${w.detail} (fix: ${w.fix})`),
    ...protNotes,
  ]
  if (mounts.privateDirs.length) notes.push(`private, empty ${mounts.privateDirs.join(' and ')} (discarded after the run)`)
  if (mounts.masked.length) notes.push(`host kernel internals hidden: ${mounts.masked.join(', ')} shown as an empty read-only directory`)
  if (mounts.placeholders.length) notes.push(`not yet existing protected or denied paths appear as empty read-only directories: ${mounts.placeholders.join(', ')}`)
  const globs = globsNote(ctx.policy)
  if (globs) notes.push(globs)
  return notes
}

function enforcementFor(ctx: PlanContext, bwrap: BwrapInfo, mounts: MountPlan, protectedPaths: string[], protNotes: string[], modeReason: string, protMissing: MissingProtection[]): Enforcement {
  const missing = [...missingFor(ctx), ...protMissing]
  const e: Enforcement = {
    mode: 'namespaces',
    modeReason,
    status: 'none',
    ...commonEnforcement(
      ctx,
      true,
      { protected: protectedPaths, narrowed: [], privateDirs: mounts.privateDirs },
      // A write root over bwrap itself is refused (namespaceSupport): the
      // command could replace it for the next launch. Landlock mode runs
      // the launcher copy from outside every write root instead.
      { writeExcluded: [bwrap.path], modeForExcluded: 'landlock' },
    ),
    missing,
    notes: notesFor(ctx, bwrap, mounts, protNotes),
  }
  e.status = statusOf(e)
  return e
}

/**
 * Network allowlist: the launcher starts the in-sandbox forwarder
 * (native/linux/forwarder.c) on the proxy's port number, relaying to the
 * proxy's unix socket. Landlock's TCP rule to that port stays as a second
 * wall where the kernel has it (ABI 4); the namespace is the first.
 */
function withForwarder(t: PlanTemplate, ctx: PlanContext): PlanTemplate {
  const { policy, probe } = ctx
  if (policy.network !== 'proxy') return t
  if (t.landlock && (probe.landlockAbi ?? 0) < 4) delete t.landlock.connectPorts
  if (!policy.proxyPort || !policy.proxySocket) return t
  return { ...t, forwarder: { port: policy.proxyPort, socket: policy.proxySocket, ...(probe.seccomp ? { seccomp: forwarderProgram() } : {}) } }
}

export function buildNamespacePlan(ctx: PlanContext, bwrap: BwrapInfo, modeReason: string): NamespacePlan {
  const { policy, probe } = ctx
  // The profile's protected paths, and the nested repositories that fit the launch's bind budget (issue 13 §7).
  const planned = protectAndPlan(policy.protectedPaths, policy.writeRoots, (paths) =>
    planMounts({ writeRoots: policy.writeRoots, protectedPaths: paths, denyRead: policy.denyRead, visible: [policy.cwd], readRoots: policy.readAll ? [] : policy.readRoots }),
  )
  const { expansion: prot, mounts } = planned
  const rules = probe.landlockAbi !== null ? namespaceLandlockRules(policy, mounts.privateDirs) : null
  const launcher = launcherFor(policy.writeRoots)
  const sources = bwrap.features.bindFd ? fdSources(mounts.ops) : []
  // A network allowlist gets a network namespace of its own too (loopback only): the forwarder is its way out.
  const args = bwrapArgs({ features: bwrap.features, networkOff: policy.network === 'off' || policy.network === 'proxy', ops: mounts.ops, launcher, sources, proxySocket: policy.proxySocket })
  return {
    prepared: {
      launcher,
      file: bwrap.path,
      args,
      bindSources: sources,
      ...(prot.removeIfCreated.length ? { afterRun: () => removeCreated(prot.removeIfCreated, policy.writeRoots) } : {}),
      template: withForwarder(launcherTemplate(ctx, rules), ctx),
      enforcement: enforcementFor(ctx, bwrap, mounts, prot.paths, prot.notes, modeReason, planned.missing),
    },
    placeholders: mounts.placeholders,
    mountTargets: mounts.ops.map((o) => o.path),
  }
}
