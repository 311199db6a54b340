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

/**
 * Why a protection is missing below the Landlock ABI that brought it. Which
 * ABI and kernel that is comes from the addon's table of rights by ABI
 * (native/linux/landlock-abi.c, the launcher's own): this file keeps only
 * the wording, by protection.
 */
const UNCONTROLLED: Readonly<Record<string, string>> = {
  'landlock-refer': 'renaming or linking files across directories is not controlled',
  'landlock-truncate': 'truncating read-only files is not controlled',
  'landlock-ioctl-dev': 'ioctl on device files is not controlled',
  'signal-scope': 'signals to processes outside the sandbox are not blocked — its supervisor included, so what the command leaves behind could outlive it',
}

export interface LandlockFeature {
  /** The ABI that brought it. */
  abi: number
  protection: string
  reason: string
}

let features: readonly LandlockFeature[] | undefined

/** The protections a kernel below each Landlock ABI lacks (landlock(7), "Previous limitations"). */
export function landlockFeatures(): readonly LandlockFeature[] {
  features ??= loadNative().binding.landlock.abis.flatMap(({ abi, kernel, protection }) =>
    protection ? [{ abi, protection, reason: `${UNCONTROLLED[protection] ?? `${protection} is not enforced`} (ABI ${abi}, Linux ${kernel})` }] : [],
  )
  return features
}
