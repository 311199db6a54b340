/** What this Linux host can enforce, asked once per process and cached. */
import { loadNative } from '../../native/load.js'
import type { NativeProbe } from '../../native/binding.js'

let cached: NativeProbe | undefined
let withUserns: NativeProbe | undefined

/** Landlock, seccomp, sysctls: cheap, no fork. */
export function probeHost(): NativeProbe {
  cached ??= withUserns ?? loadNative().binding.probe(false)
  return cached
}

/** Also tries an unprivileged user + mount namespace in a forked child (doctor). */
export function probeHostWithUserns(): NativeProbe {
  withUserns ??= loadNative().binding.probe(true)
  return withUserns
}

/** Rights and features by Landlock ABI (landlock(7), "Previous limitations"). */
export const LANDLOCK_FEATURES = [
  { abi: 2, protection: 'landlock-refer', reason: 'renaming or linking files across directories is not controlled (ABI 2, Linux 5.19)' },
  { abi: 3, protection: 'landlock-truncate', reason: 'truncating read-only files is not controlled (ABI 3, Linux 6.2)' },
  { abi: 5, protection: 'landlock-ioctl-dev', reason: 'ioctl on device files is not controlled (ABI 5, Linux 6.10)' },
  { abi: 6, protection: 'signal-scope', reason: 'signals to processes outside the sandbox are not blocked — its supervisor included, so what the command leaves behind could outlive it (ABI 6, Linux 6.12)' },
] as const
