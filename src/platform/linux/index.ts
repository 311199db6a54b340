/**
 * The Linux backend: Landlock + seccomp in a launcher (Landlock mode), the
 * same launcher inside bubblewrap's namespaces (namespace mode), chosen per
 * launch by prepare.ts. The prepared plan stays inside this module: callers
 * hold an opaque handle with its enforcement report.
 */
import type { PlanRequest, PlatformBackend, PreparedLaunch } from '../backend.js'
import { linuxDoctor } from './doctor.js'
import { linuxHostFacts } from './host-facts.js'
import { prepareLinux, releaseIdlePlaceholders, releasePrepared } from './prepare.js'
import type { LinuxPrepared } from './prepared.js'
import { startLinux } from './start.js'

export function linuxBackend(): PlatformBackend {
  const plans = new WeakMap<PreparedLaunch, LinuxPrepared>()
  const planOf = (handle: PreparedLaunch): LinuxPrepared => {
    const plan = plans.get(handle)
    if (!plan) throw new TypeError('not a launch this backend prepared (or one already released)')
    return plan
  }
  const ctx = (req: PlanRequest) => ({ policy: req.policy, explicit: req.explicit, bwrap: req.bwrap, allowUnconfinedFilesystem: req.allowUnconfinedFilesystem === true })
  return {
    platform: 'linux',
    report: (req) => prepareLinux(req.mode, ctx(req), { materialize: false }).enforcement,
    prepare(req) {
      const plan = prepareLinux(req.mode, ctx(req))
      const handle: PreparedLaunch = { enforcement: plan.enforcement }
      plans.set(handle, plan)
      return handle
    },
    start: (handle, req) => startLinux(planOf(handle), req),
    release(handle) {
      const plan = plans.get(handle)
      plans.delete(handle)
      if (plan) releasePrepared(plan)
    },
    releaseIdle: releaseIdlePlaceholders,
    doctor: linuxDoctor,
    hostFacts: linuxHostFacts(),
  }
}
