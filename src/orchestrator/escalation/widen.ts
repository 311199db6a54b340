/**
 * Escalation: the sandbox options of a wider second attempt. Only what was
 * denied is widened — the write root that was refused, the read root, or
 * the network — and a denied read is never dropped:
 *
 * - a denial inside a denied read, under a protected path or by the syscall
 *   filter is not widened (it is refused, with the reason);
 * - a request for "no sandbox" becomes a sandbox that writes everywhere and
 *   reaches the network but keeps every read mask. Only a profile with no
 *   denied read at all, and only with `allowUnsandboxed`, runs unconfined.
 */
import { loadProfile, DEFAULT_PROFILE } from '../../profile/profiles.js'
import type { ProfileInput } from '../../profile/schema.js'
import type { SandboxOptions } from '../../sandbox/options.js'
import type { Enforcement, WideningLimits } from '../../platform/enforcement.js'
import type { Denial } from '../denial/denial.js'
import { dirname } from 'node:path'
import { isUnder, nearestExistingDir } from '../denial/path-rules.js'

export interface Widening {
  /** Write roots added. */
  readonly write: readonly string[]
  /** Read roots added. */
  readonly read: readonly string[]
  readonly network: boolean
  /** "No sandbox" asked for: write everywhere and network on, read masks kept. */
  readonly full: boolean
  /** Unconfined (no denied read exists and the caller allowed it). */
  readonly unsandboxed: boolean
}

export interface WideningPlan {
  readonly widening?: Widening
  /** Denials that will not be widened, and why. */
  readonly refused: readonly { readonly denial: Denial; readonly reason: string }[]
}

const REFUSAL: Partial<Record<Denial['rule'], string>> = {
  'deny-read': 'a denied read is never dropped',
  narrowed: 'a denied read is never dropped (this directory is narrowed to keep one)',
  protected: 'protected paths stay read-only',
  seccomp: 'the syscall filter is not widened',
}

/** Widen what the denials name, within what `fs` (this attempt's enforcement) already allows. */
export function planWidening(denials: readonly Denial[], enforcement: Enforcement): WideningPlan {
  const write = new Set<string>()
  const read = new Set<string>()
  let network = false
  const refused: { denial: Denial; reason: string }[] = []
  for (const d of denials) {
    const refusal = REFUSAL[d.rule]
    if (refusal) refused.push({ denial: d, reason: refusal })
    else if (d.rule === 'network-off') network = true
    else if ((d.rule === 'outside-write-roots' || d.rule === 'private-tmp') && d.path) write.add(holder(d.path))
    else if (d.rule === 'outside-read-roots' && d.path) read.add(nearestExistingDir(d.path))
  }
  // A widened root must not swallow a denied read: Landlock grants by
  // hierarchy, and cordon re-applies denyRead inside it, but say it plainly
  // by never adding a root that *is* (or lies inside) a denied path.
  const fs = enforcement.filesystem
  const masked = (p: string) => fs.denyRead.some((d) => isUnder(p, d))
  const w = [...write].filter((p) => !masked(p))
  const r = [...read].filter((p) => !masked(p))
  if (w.length === 0 && r.length === 0 && !network) return { refused }
  return { widening: { write: w, read: r, network, full: false, unsandboxed: false }, refused }
}

/**
 * The write root for a denied write of `path`: the directory that holds it
 * (creating, removing or renaming an entry needs write access to its
 * directory), or the nearest existing ancestor when that is missing too.
 */
function holder(path: string): string {
  return nearestExistingDir(dirname(path))
}

/** True when the profile of these options denies any read (built-in secrets included). */
export function hasDeniedRead(options: SandboxOptions): boolean {
  if ((options.denyRead?.length ?? 0) > 0) return true
  const profile = loadProfile((options.profile ?? DEFAULT_PROFILE) as string | ProfileInput)
  return profile.filesystem.denySecrets || profile.filesystem.denyRead.length > 0
}

/** The widening for a "no sandbox" request. */
export function noSandboxWidening(options: SandboxOptions, allowUnsandboxed: boolean): Widening {
  const unsandboxed = allowUnsandboxed && !hasDeniedRead(options)
  return { write: ['/'], read: ['/'], network: true, full: true, unsandboxed }
}

/**
 * Sandbox options for an attempt with `widening` applied on top of `base`.
 * `limits` are what the base sandbox's own report says a widening may not
 * cover in its mode, and which mode can grant it instead.
 */
export function applyWidening(base: SandboxOptions, widening: Widening | undefined, limits?: WideningLimits): SandboxOptions {
  if (!widening) return base
  if (widening.unsandboxed) {
    const profile = loadProfile((base.profile ?? DEFAULT_PROFILE) as string | ProfileInput)
    // Only reached when hasDeniedRead() is false: nothing to drop.
    return { ...base, profile: { ...profile, name: `${profile.name ?? 'custom'}+unsandboxed`, unsandboxed: true } }
  }
  const out: SandboxOptions = { ...base, write: [...(base.write ?? []), ...widening.write] }
  // A mode may be unable to grant a write root over something it must keep
  // out of the command's reach (namespace mode: its own bwrap binary, which
  // the command could replace for the next launch). The report names the
  // mode that can — for "write everywhere", Landlock mode, which keeps the
  // read masks by narrowing.
  const excluded = limits?.writeExcluded.some((x) => widening.write.some((w) => isUnder(x, w)))
  if (excluded && limits?.modeForExcluded) out.mode = limits.modeForExcluded
  if (widening.read.length > 0) out.read = [...(base.read ?? []), ...widening.read]
  if (widening.network) out.network = 'on'
  return out
}

/** A stable text naming a widening, for session-cache keys and messages. */
export function describeWidening(w: Widening): string {
  if (w.unsandboxed) return 'unsandboxed'
  if (w.full) return 'full (read masks kept)'
  const parts = [...w.write.map((p) => `write:${p}`), ...w.read.map((p) => `read:${p}`), ...(w.network ? ['network'] : [])]
  return parts.join(',')
}
