/**
 * The Windows doctor: the addon and launcher load, the OS version, and
 * the honest status of every mechanism — none of them has run on real
 * Windows yet, and under Wine none but the job's kill-on-close is enforced.
 */
import { loadNative } from '../../native/load.js'
import type { DoctorCheck, DoctorReport } from '../backend.js'
import { VERIFIED } from './plan.js'

const WINE_GAP = 'Wine enforces no restricted token, integrity level, ACL or job limit (measured: a write to a denied folder succeeds); only kill-on-close works'

export function win32Doctor(): DoctorReport {
  const native = loadNative()
  const p = native.binding.win32Probe?.()
  const wine = p?.wine ?? null
  const checks: DoctorCheck[] = [
    { mechanism: 'native addon', ok: true, detail: native.addonPath },
    { mechanism: 'launcher', ok: true, detail: native.launcherPath },
    { mechanism: 'restricted token + ACLs + job object', ok: wine === null, detail: wine ? `Wine ${wine}: ${WINE_GAP}` : VERIFIED, ...(wine ? { fix: 'run on real Windows 10 or later' } : {}) },
    { mechanism: 'network', ok: false, detail: 'not confined on Windows (a token cannot block sockets)', fix: 'docs/windows.md#network: AppContainer or WFP filters are the planned mechanism' },
  ]
  return {
    platform: 'win32',
    kernel: p ? `Windows ${p.version}${wine ? ` (Wine ${wine})` : ''}` : 'Windows',
    checks,
    modes: { 'restricted-token': wine === null },
    auto: wine === null
      ? { mode: 'restricted-token', reason: `write-restricted token, ACLs, job object (${VERIFIED})` }
      : { mode: 'restricted-token', reason: `runs, but ${WINE_GAP}` },
  }
}
