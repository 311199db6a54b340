/**
 * The enforcement report: what a sandbox enforces (or enforced) here, and
 * what it could not. Status `full` means every requested protection is in
 * force; `partial` lists the rest in `missing`; `none` means no confinement.
 */
export type EnforcementMode = 'landlock' | 'namespaces' | 'none'

export interface MissingProtection {
  /** Stable id, e.g. `protected-paths`, `signal-scope`, `landlock`. */
  protection: string
  reason: string
  /** True when the caller asked for it explicitly (compat default: refuse). */
  explicit: boolean
  fix?: string
}

export interface Enforcement {
  mode: EnforcementMode
  modeReason: string
  status: 'full' | 'partial' | 'none'
  landlockAbi: number | null
  seccomp: boolean
  noNewPrivs: boolean
  capabilitiesDropped: boolean
  network: 'off' | 'on'
  filesystem: {
    readAll: boolean
    readRoots: string[]
    writeRoots: string[]
    denyRead: string[]
    protected: string[]
    /** Directories narrowed so a denied path below them stays unreadable (Landlock mode). */
    narrowed: string[]
  }
  envDropped: string[]
  missing: MissingProtection[]
  notes: string[]
}

export function statusOf(mechanismApplied: boolean, missing: readonly MissingProtection[]): Enforcement['status'] {
  if (!mechanismApplied) return 'none'
  return missing.length === 0 ? 'full' : 'partial'
}
