/**
 * The Windows backend: a launcher that runs the command under a
 * write-restricted token with a per-sandbox SID, ACLs granting that SID
 * the write roots and denying it the protected paths, in a kill-on-close
 * job (docs/windows.md). Planning is plan.ts (pure); the launcher is
 * native/win32. Verified: runs under Wine; token, ACL and job limits have
 * not yet run on real Windows, and every report says so.
 */
import { existsSync, mkdirSync } from 'node:fs'
import { UnsupportedError } from '../../errors.js'
import { loadNative } from '../../native/load.js'
import type { PlanRequest, PlatformBackend, PreparedLaunch } from '../backend.js'
import { win32Doctor } from './doctor.js'
import { isWithinWin32 } from './paths.js'
import { planWin32 } from './plan.js'
import { newSandboxSid } from './sid.js'
import { startWin32, type Win32Prepared } from './start.js'
import { checkedStateDir, journalDir, launcherFor } from './state.js'

function planFor(req: PlanRequest, sid: string) {
  if (req.mode !== 'auto') throw new UnsupportedError(`sandbox mode '${req.mode}'`, "'auto' (Windows: restricted token)", 'win32', "Landlock and namespace modes are Linux's; omit mode on Windows")
  if (req.policy.unsandboxed) throw new UnsupportedError('unsandboxed profiles', 'Linux', 'win32', 'not in this version on Windows (docs/windows.md)')
  const state = checkedStateDir(req.policy.writeRoots)
  return { state, ...planWin32({ policy: req.policy, explicit: req.explicit, sid, journal: journalDir(state), exists: existsSync }) }
}

export function win32Backend(): PlatformBackend {
  const plans = new WeakMap<PreparedLaunch, Win32Prepared>()
  return {
    platform: 'win32',
    report: (req) => planFor(req, newSandboxSid()).enforcement,
    prepare(req) {
      const { state, plan, enforcement } = planFor(req, newSandboxSid())
      mkdirSync(plan.journal, { recursive: true })
      const launcher = launcherFor(loadNative().launcherPath, plan.allow, state)
      const handle: PreparedLaunch = { enforcement }
      const tmpdir = req.policy.tmpdir && plan.allow.some((r) => isWithinWin32(req.policy.tmpdir, r)) ? req.policy.tmpdir : undefined
      plans.set(handle, { launcher, cwd: req.policy.cwd, ...(tmpdir ? { tmpdir } : {}), plan, enforcement })
      return handle
    },
    start(handle, req) {
      const prepared = plans.get(handle)
      if (!prepared) throw new TypeError('not a launch this backend prepared (or one already released)')
      // One SID per launch: a second start of the same plan gets its own, so two runs never share ACEs or a journal.
      const sid = newSandboxSid()
      const e = prepared.enforcement
      const enforcement = e.platform.os === 'win32' ? { ...e, platform: { ...e.platform, capabilitySid: sid } } : e
      return startWin32({ ...prepared, plan: { ...prepared.plan, sid }, enforcement }, req)
    },
    release: (handle) => void plans.delete(handle),
    releaseIdle: () => {},
    doctor: win32Doctor,
  }
}
