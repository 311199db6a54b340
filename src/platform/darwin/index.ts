/**
 * The macOS backend: a Seatbelt (SBPL) profile generated from the
 * permission profile (sbpl.ts, profiles/darwin/base.json), applied by the
 * launcher (native/darwin) with sandbox_init before it execs the command.
 * The prepared plan stays inside this module: callers hold an opaque
 * handle with its enforcement report.
 *
 * Constructed directly (with a launcher built against a test double of
 * sandbox_init) by the unit tests on Linux; picked by backendFor() on
 * darwin. Not yet run on macOS.
 */
import { LoadError } from '../../errors.js'
import { isWithin } from '../../profile/paths.js'
import type { PlanRequest, PlatformBackend, PreparedLaunch } from '../backend.js'
import { launcherFor } from '../launcher-path.js'
import { darwinDoctor } from './doctor.js'
import { prepareDarwin, type DarwinOptions, type DarwinPrepared } from './prepare.js'
import { startDarwin } from './start.js'

/**
 * The launcher runs before any confinement: one inside a write root could
 * be replaced by a sandboxed command for the next launch. The shipped one
 * gets a private copy outside the write roots (src/platform/launcher-path.ts,
 * shared with Linux); one named by the caller is refused there.
 */
function launcherOf(options: DarwinOptions, req: PlanRequest): string {
  if (!options.launcher) return launcherFor(req.policy.writeRoots)
  const root = req.policy.writeRoots.find((w) => w !== '/' && isWithin(options.launcher!, w))
  if (root) throw new LoadError(`the launcher ${options.launcher} lies inside the write root ${root}: a sandboxed command could replace it`, [options.launcher], 'use a launcher outside every write root')
  return options.launcher
}

export function darwinBackend(options: DarwinOptions = {}): PlatformBackend {
  const plans = new WeakMap<PreparedLaunch, { plan: DarwinPrepared; launcher: string }>()
  const planOf = (handle: PreparedLaunch) => {
    const p = plans.get(handle)
    if (!p) throw new TypeError('not a launch this backend prepared (or one already released)')
    return p
  }
  return {
    platform: 'darwin',
    report: (req) => prepareDarwin(req, options).enforcement,
    prepare(req) {
      const plan = prepareDarwin(req, options)
      const handle: PreparedLaunch = { enforcement: plan.enforcement }
      plans.set(handle, { plan, launcher: launcherOf(options, req) })
      return handle
    },
    start: (handle, req) => {
      const { plan, launcher } = planOf(handle)
      return startDarwin(launcher, plan, req)
    },
    release: (handle) => void plans.delete(handle),
    releaseIdle: () => {},
    doctor: () => darwinDoctor(options.launcher),
  }
}
