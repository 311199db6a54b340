/**
 * What every backend plans the same way from a resolved policy: the
 * launcher's rlimits, and the run of an `unsandboxed: true` profile (still
 * through the launcher, with no confinement, refused when anything is
 * denied for reading: a denied read is never dropped).
 */
import { PolicyError } from '../errors.js'
import type { ResolvedPolicy } from '../profile/resolve.js'
import type { Enforcement, PlatformEnforcement } from './enforcement.js'

export interface RlimitPlan {
  resource: string
  soft: string
  hard: string
}

/** The setrlimit(2) resources a profile may set; its cgroup limits (pids, memory, cpus) are the run's cgroup's (linux/cgroup/). */
const RLIMITS = ['nproc', 'nofile', 'fsize', 'as', 'cpu'] as const

/** The profile's limits as the launcher's rlimits (soft = hard). */
export function rlimitsOf(policy: ResolvedPolicy): RlimitPlan[] {
  return RLIMITS.map((resource) => [resource, policy.limits[resource]] as const)
    .filter(([, v]) => v !== undefined)
    .map(([resource, v]) => ({ resource, soft: String(v), hard: String(v) }))
}

/** The report of an unsandboxed run; a PolicyError when the profile also denies reads. */
export function unsandboxedEnforcement(policy: ResolvedPolicy, platform: PlatformEnforcement, notes: string[]): Enforcement {
  if (policy.denyRead.length || policy.denyGlobs.length) {
    throw new PolicyError('an unsandboxed profile cannot deny reads (set filesystem.denySecrets: false and denyRead: [] to run without a sandbox)', { where: 'profile.unsandboxed' })
  }
  return {
    mode: 'none',
    modeReason: 'the profile asked for no sandbox (unsandboxed: true)',
    status: 'none',
    mechanisms: [],
    network: 'on',
    filesystem: { confined: false, readAll: true, readRoots: ['/'], writeRoots: ['/'], denyRead: [], protected: [], narrowed: [], privateDirs: [] },
    envDropped: policy.envDropped,
    missing: [],
    notes,
    widening: { writeExcluded: [] },
    platform,
  }
}
