/**
 * doctor(): what this host can enforce, mechanism by mechanism, and the
 * exact fix for what it cannot — answered by the backend of this platform.
 * Used by `cordon doctor` and available to callers.
 */
import type { DoctorReport } from './platform/backend.js'
import { backendFor } from './platform/index.js'
import { CordonError } from './errors.js'

export type { DoctorCheck, DoctorReport } from './platform/backend.js'

export function doctor(): DoctorReport {
  try {
    return backendFor().doctor()
  } catch (err) {
    if (!(err instanceof CordonError) || err.code !== 'E_UNSUPPORTED') throw err
    // No backend here: a report that says so, not an exception (`cordon doctor` prints it).
    return {
      platform: process.platform,
      kernel: '',
      checks: [{ mechanism: 'backend', ok: false, detail: err.message }],
      modes: {},
      auto: { mode: 'none', reason: err.message },
    }
  }
}
