/**
 * The compat decision: given what a launch would enforce, run it, or refuse.
 * Never a silent unconfined run: `none` is refused unless the profile asked
 * for no sandbox in so many words.
 */
import { UnsupportedError } from '../errors.js'
import type { Compat } from '../profile/schema.js'
import type { Enforcement } from '../platform/enforcement.js'

export function checkCompat(e: Enforcement, compat: Compat | undefined, unsandboxed: boolean): void {
  if (e.status === 'none' && !unsandboxed) {
    const why = e.missing.map((m) => m.reason).join('; ')
    throw new UnsupportedError('sandbox', 'at least one of Landlock or seccomp', 'neither', why || 'no mechanism applies')
  }
  const refuse = compat === 'hard' ? e.missing : compat === 'best-effort' ? [] : e.missing.filter((m) => m.explicit)
  const first = refuse[0]
  if (first) {
    const more = refuse.length > 1 ? ` (and ${refuse.slice(1).map((m) => m.protection).join(', ')})` : ''
    throw new UnsupportedError(first.protection + more, 'enforcement', first.reason, first.fix ?? "pass compat: 'best-effort' to run without it and see it in the report")
  }
}
