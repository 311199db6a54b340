/**
 * The Linux backend: choose the mode, build the plan, name what to spawn.
 * Landlock mode spawns the launcher directly; namespace mode (bubblewrap)
 * wraps the same launcher, so both modes share one confinement core.
 */
import { PolicyError, UnsupportedError } from '../../errors.js'
import type { ResolvedPolicy } from '../../policy/resolve.js'
import { loadNative } from '../../native/load.js'
import type { SandboxMode } from '../../policy/schema.js'
import { buildLandlockPlan, type PlanContext } from './plan.js'
import { probeHost } from './probe.js'
import { PLAN_FD, STATUS_FD } from './launch.js'
import type { Prepared } from '../backend.js'

export function prepareLinux(mode: SandboxMode, ctx: Omit<PlanContext, 'probe'>): Prepared {
  const probe = probeHost()
  if (ctx.policy.unsandboxed) return unsandboxed(ctx.policy)
  if (mode === 'namespaces') {
    throw new UnsupportedError('namespace mode', 'bubblewrap namespace support in cordon', 'not implemented in this version', "use mode 'landlock' or 'auto'")
  }
  const { template, enforcement } = buildLandlockPlan({ ...ctx, probe })
  if (mode === 'auto') enforcement.modeReason = 'auto: namespace mode is not available in this version; Landlock + seccomp in the launcher'
  return {
    file: loadNative().launcherPath,
    args: ['--plan-fd', String(PLAN_FD), '--status-fd', String(STATUS_FD)],
    template,
    enforcement,
  }
}

/**
 * A profile with `unsandboxed: true` still goes through the launcher (new
 * session, closed fds, env policy, rlimits, no capabilities, no_new_privs)
 * but without Landlock or seccomp. Refused when anything is denied for
 * reading: a denied read is never dropped.
 */
function unsandboxed(policy: ResolvedPolicy): Prepared {
  if (policy.denyRead.length || policy.denyGlobs.length) {
    throw new PolicyError('an unsandboxed profile cannot deny reads (set filesystem.denySecrets: false and denyRead: [] to run without a sandbox)', { where: 'profile.unsandboxed' })
  }
  return {
    file: loadNative().launcherPath,
    args: ['--plan-fd', String(PLAN_FD), '--status-fd', String(STATUS_FD)],
    template: { v: 1, cwd: policy.cwd, rlimits: [], landlock: null, seccomp: null },
    enforcement: {
      mode: 'none',
      modeReason: 'the profile asked for no sandbox (unsandboxed: true)',
      status: 'none',
      landlockAbi: null,
      seccomp: false,
      noNewPrivs: true,
      capabilitiesDropped: true,
      network: 'on',
      filesystem: { readAll: true, readRoots: ['/'], writeRoots: ['/'], denyRead: [], protected: [], narrowed: [] },
      envDropped: policy.envDropped,
      missing: [],
      notes: ['no filesystem, network or syscall confinement'],
    },
  }
}
