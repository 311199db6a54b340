/**
 * The compat decision: given what a launch would enforce, run it, or refuse.
 * Never a silent unconfined run: `none` is refused unless the profile asked
 * for no sandbox in so many words.
 */
import { UnsupportedError } from '../errors.js'
import type { Compat } from '../profile/schema.js'
import { confining, type Enforcement } from '../platform/enforcement.js'

export interface CompatChoice {
  compat: Compat | undefined
  /** The profile asked for no sandbox in so many words. */
  unsandboxed: boolean
  /** The caller opted in, by name, to a run whose filesystem nothing confines. */
  allowUnconfinedFilesystem: boolean
}

export function checkCompat(e: Enforcement, choice: CompatChoice): void {
  const { compat, unsandboxed, allowUnconfinedFilesystem } = choice
  if (e.status === 'none' && !unsandboxed) {
    if (confining(e.mechanisms).length === 0) {
      const why = e.missing.map((m) => m.reason).join('; ')
      throw new UnsupportedError('sandbox', 'at least one confinement mechanism', 'none', why || 'no mechanism applies')
    }
    // Something applies, but not to the filesystem: refused even under
    // best-effort, unless the caller named this exact risk.
    const fs = e.missing.find((m) => m.protection === 'filesystem')
    if (!allowUnconfinedFilesystem) throw new UnsupportedError('filesystem confinement', 'Landlock or namespace mode', 'neither', fs?.fix ?? 'pass allowUnconfinedFilesystem: true to run without it')
  }
  const waived = (m: Enforcement['missing'][number]) => allowUnconfinedFilesystem && m.protection === 'filesystem'
  const missing = e.missing.filter((m) => !waived(m))
  const refuse = compat === 'hard' ? missing : compat === 'best-effort' ? [] : missing.filter((m) => m.explicit)
  const first = refuse[0]
  if (first) {
    const more = refuse.length > 1 ? ` (and ${refuse.slice(1).map((m) => m.protection).join(', ')})` : ''
    throw new UnsupportedError(first.protection + more, 'enforcement', first.reason, first.fix ?? "pass compat: 'best-effort' to run without it and see it in the report")
  }
}
