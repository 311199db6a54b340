/**
 * The Linux doctor: what this host can enforce, mechanism by mechanism, both
 * modes, and the exact fix for what it cannot. Runs the same probes a
 * launch uses, including a real bwrap trial run (never answered from the
 * cache a launch may use).
 */
import type { NativeProbe } from '../../native/binding.js'
import { loadNative } from '../../native/load.js'
import type { DoctorCheck, DoctorReport } from '../backend.js'
import { APPARMOR_FIX, CONTAINER_FIX, MAX_USERNS_FIX, USERNS_CLONE_FIX } from './namespaces/bwrap-diagnose.js'
import { probeNamespaces, type NamespaceSupport } from './namespaces/bwrap-probe.js'
import { probeHostWithUserns } from './probe.js'
import { errnoName } from '../../native/errno.js'
import { cgroupDoctorCheck, cgroupDoctorFacts } from './cgroup/cgroup-support.js'

function usernsCheck(p: NativeProbe): DoctorCheck {
  if (p.userns) return { mechanism: 'user namespaces', ok: true, detail: 'unprivileged user + mount namespaces work' }
  let fix = 'allow unprivileged user namespaces'
  if (p.maxUserNamespaces === 0) fix = MAX_USERNS_FIX
  else if (p.unprivilegedUsernsClone === 0) fix = USERNS_CLONE_FIX
  else if (p.apparmorRestrictUserns === 1) fix = APPARMOR_FIX
  else if (p.usernsStep === 'mount' || p.usernsStep === 'unshare') fix = CONTAINER_FIX
  return { mechanism: 'user namespaces', ok: false, detail: `${p.usernsStep ?? 'unshare'} failed: ${errnoName(p.usernsErrno)}`, fix }
}

function bwrapChecks(ns: NamespaceSupport): DoctorCheck[] {
  if (!ns.ok && !ns.bwrap) return [{ mechanism: 'bubblewrap', ok: false, detail: ns.reason, fix: ns.fix }]
  const info = ns.bwrap!
  const checks: DoctorCheck[] = []
  const options = [info.features.disableUserns ? '--disable-userns' : 'no --disable-userns (seccomp blocks nested user namespaces)', info.setuid ? 'setuid' : 'unprivileged']
  checks.push({ mechanism: 'bubblewrap', ok: true, detail: `${info.version ?? 'unknown version'} at ${info.path} (${options.join(', ')})` })
  for (const w of info.warnings) checks.push({ mechanism: 'bubblewrap', ok: true, warning: true, detail: w.detail, fix: w.fix })
  checks.push(
    ns.ok
      ? { mechanism: 'namespace sandbox', ok: true, detail: 'bwrap trial run with user, pid, ipc, uts, net namespaces and a fresh /proc succeeded' }
      : { mechanism: 'namespace sandbox', ok: false, detail: `${ns.cause}: ${ns.reason}`, fix: ns.fix },
  )
  return checks
}

function autoChoice(landlock: boolean, ns: NamespaceSupport): DoctorReport['auto'] {
  if (ns.ok) return { mode: 'namespaces', reason: 'bubblewrap and unprivileged user namespaces work: namespaces + Landlock + seccomp' }
  if (landlock) return { mode: 'landlock', reason: `namespace mode unavailable (${ns.cause}); Landlock-only mode lacks protected paths and pid/ipc/network isolation. Fix: ${ns.fix}` }
  return { mode: 'none', reason: 'no mechanism applies: cordon refuses to run (never a silent unconfined run)' }
}

export function linuxDoctor(): DoctorReport {
  const native = loadNative()
  const p = probeHostWithUserns()
  // A fresh trial run (it also refreshes the cross-process cache a launch reads).
  const ns = probeNamespaces(undefined, { refresh: true })
  const checks: DoctorCheck[] = [
    { mechanism: 'native addon', ok: true, detail: native.addonPath },
    { mechanism: 'launcher', ok: true, detail: native.launcherPath },
    p.landlockAbi !== null
      ? { mechanism: 'Landlock', ok: true, detail: `ABI ${p.landlockAbi}${p.landlockErrata !== null ? `, errata 0x${p.landlockErrata.toString(16)}` : ''}${p.landlockAbi < 6 ? ' (signal scoping needs ABI 6)' : ''}` }
      : { mechanism: 'Landlock', ok: false, detail: `unavailable: ${errnoName(p.landlockErrno)}`, fix: p.landlockErrno === 95 ? 'add landlock to the lsm= kernel command line' : 'a kernel ≥ 5.13 built with CONFIG_SECURITY_LANDLOCK=y' },
    p.seccomp
      ? { mechanism: 'seccomp', ok: true, detail: 'filters available (SECCOMP_RET_KILL_PROCESS supported)' }
      : { mechanism: 'seccomp', ok: false, detail: `unavailable: ${errnoName(p.seccompErrno)}`, fix: 'a kernel with CONFIG_SECCOMP_FILTER' },
    usernsCheck(p),
    ...bwrapChecks(ns),
    cgroupDoctorCheck(p.kernel),
    { mechanism: 'no_new_privs (caller)', ok: true, detail: p.noNewPrivs ? 'already set on this process' : 'not set on this process (set in every child)' },
  ]
  const landlock = p.landlockAbi !== null || p.seccomp
  const auto = autoChoice(landlock, ns)
  checks.push({ mechanism: "mode 'auto'", ok: auto.mode !== 'none', detail: `${auto.mode}: ${auto.reason}` })
  return {
    platform: 'linux',
    kernel: p.kernel,
    checks,
    modes: { landlock, namespaces: ns.ok },
    auto,
    cgroups: cgroupDoctorFacts(),
    ...(ns.ok ? {} : { namespaces: { cause: ns.cause, reason: ns.reason, fix: ns.fix } }),
  }
}
