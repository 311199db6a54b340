/**
 * doctor(): what this host can enforce, mechanism by mechanism, and how to
 * fix what it cannot. Used by `cordon doctor` and available to callers.
 */
import { constants } from 'node:os'
import { loadNative } from './native/load.js'
import { probeHost } from './platform/linux/probe.js'

export interface DoctorCheck {
  mechanism: string
  ok: boolean
  detail: string
  fix?: string
}
export interface DoctorReport {
  platform: string
  kernel: string
  checks: DoctorCheck[]
  modes: { landlock: boolean; namespaces: boolean }
}

const errnoName = (n: number) => Object.entries(constants.errno).find(([, v]) => v === n)?.[0] ?? `errno ${n}`

function usernsCheck(p: ReturnType<typeof probeHost>): DoctorCheck {
  if (p.userns) return { mechanism: 'user namespaces', ok: true, detail: 'unprivileged user + mount namespaces work' }
  let fix = 'allow unprivileged user namespaces'
  if (p.maxUserNamespaces === 0) fix = 'sysctl -w user.max_user_namespaces=15000'
  else if (p.unprivilegedUsernsClone === 0) fix = 'sysctl -w kernel.unprivileged_userns_clone=1'
  else if (p.apparmorRestrictUserns === 1) fix = 'AppArmor restricts unprivileged user namespaces (Ubuntu ≥ 23.10): install an AppArmor profile for bwrap with `userns,` or sysctl -w kernel.apparmor_restrict_unprivileged_userns=0'
  else if (p.usernsStep === 'mount') fix = 'a container without CAP_SYS_ADMIN in its user namespace: run it with --security-opt seccomp=unconfined or a profile allowing unshare/mount'
  return { mechanism: 'user namespaces', ok: false, detail: `${p.usernsStep ?? 'unshare'} failed: ${errnoName(p.usernsErrno)}`, fix }
}

export function doctor(): DoctorReport {
  if (process.platform !== 'linux') {
    return { platform: process.platform, kernel: '', checks: [{ mechanism: 'backend', ok: false, detail: `no ${process.platform} backend in this version` }], modes: { landlock: false, namespaces: false } }
  }
  const native = loadNative()
  const p = probeHost()
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
    { mechanism: 'no_new_privs (caller)', ok: true, detail: p.noNewPrivs ? 'already set on this process' : 'not set on this process (set in every child)' },
  ]
  return { platform: 'linux', kernel: p.kernel, checks, modes: { landlock: p.landlockAbi !== null || p.seccomp, namespaces: false } }
}
