/**
 * The macOS doctor: what this host offers for the Seatbelt backend. It
 * checks what can be checked without confining anything (the addon, the
 * launcher, the OS version); whether sandbox_init accepts cordon's profile
 * is only known when a launch reports (not yet run on macOS).
 */
import { release } from 'node:os'
import { loadNative } from '../../native/load.js'
import type { DoctorCheck, DoctorReport } from '../backend.js'
import { VERIFIED_NOTE } from './prepare.js'

export function darwinDoctor(launcher?: string): DoctorReport {
  const checks: DoctorCheck[] = []
  try {
    const native = loadNative()
    checks.push({ mechanism: 'native addon', ok: true, detail: native.addonPath })
    checks.push({ mechanism: 'launcher', ok: true, detail: launcher ?? native.launcherPath })
  } catch (err) {
    checks.push({ mechanism: 'native addon', ok: false, detail: (err as Error).message, fix: 'npm rebuild cordon (needs the Xcode command line tools), or install a version with a darwin prebuild' })
  }
  checks.push({ mechanism: 'Seatbelt', ok: true, warning: true, detail: `sandbox_init applies the generated profile in the launcher; ${VERIFIED_NOTE}` })
  const ok = checks.every((c) => c.ok)
  return {
    platform: 'darwin',
    kernel: `Darwin ${release()}`,
    checks,
    modes: { seatbelt: ok },
    auto: ok ? { mode: 'seatbelt', reason: 'macOS: the Seatbelt profile applied by the launcher' } : { mode: 'none', reason: 'the launcher is missing: cordon refuses to run (never a silent unconfined run)' },
  }
}
