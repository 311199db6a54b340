/**
 * Escalation: the sandbox options of a wider second attempt. Only what was
 * denied is widened — the write root that was refused, the read root, the
 * network — and a denied read is never dropped:
 *
 * - a denial inside a denied read, under a protected path or by the syscall
 *   filter is not widened (it is refused, with the reason);
 * - a request for "no sandbox" becomes a sandbox that writes everywhere and
 *   reaches every host and local socket but keeps every read mask. Only a
 *   profile with no denied read at all, and only with `allowUnsandboxed`,
 *   runs unconfined.
 *
 * What was denied is known from the command's own output (denial.ts), so
 * the output steers what is proposed (issue 13 §6). A proposal therefore
 * never reaches past what a forged line may ask for (root-guard.ts: not
 * `/`, a home or what holds one, system directories, shared temp dirs or
 * another user's directory in them, a directory holding a protected path or
 * a rules file), and a network denial widens to every host but never to the
 * host's unix sockets unless one was named (issue 13 §5: until the
 * allowlist proxy, there is no "one host"). Every widening states its real
 * scope (scope.ts).
 */
import { loadProfile, DEFAULT_PROFILE } from '../../profile/profiles.js'
import type { ProfileInput } from '../../profile/schema.js'
import type { SandboxOptions } from '../../sandbox/options.js'
import type { Enforcement, WideningLimits } from '../../platform/enforcement.js'
import type { Denial } from '../denial/denial.js'
import { dirname } from 'node:path'
import { isUnder, nearestExistingDir } from '../denial/path-rules.js'
import { refusedRoot, type RootGuard } from './root-guard.js'

export interface Widening {
  /** Write roots added. */
  readonly write: readonly string[]
  /** Read roots added. */
  readonly read: readonly string[]
  /** Every host over IP (network `inet`): there is no per-host widening yet. */
  readonly network: boolean
  /** The host's unix sockets too (network `on`): docker.sock, D-Bus, an ssh agent. */
  readonly localSockets: boolean
  /** "No sandbox" asked for: write everywhere, every host and local socket, read masks kept. */
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

/** Widen what the denials name, within what `enforcement` (this attempt's report) already allows and `guard` lets be proposed. */
export function planWidening(denials: readonly Denial[], enforcement: Enforcement, guard: RootGuard = {}): WideningPlan {
  const write = new Map<string, Denial>()
  const read = new Map<string, Denial>()
  let network = false
  let localSockets = false
  const refused: { denial: Denial; reason: string }[] = []
  for (const d of denials) {
    const refusal = REFUSAL[d.rule]
    if (refusal) refused.push({ denial: d, reason: refusal })
    else if (d.rule === 'network-off' || d.rule === 'local-sockets-off') {
      network = true
      localSockets ||= d.socket !== undefined || d.rule === 'local-sockets-off'
    } else if ((d.rule === 'outside-write-roots' || d.rule === 'private-tmp') && d.path) write.set(holder(d.path), d)
    else if (d.rule === 'outside-read-roots' && d.path) read.set(nearestExistingDir(d.path), d)
  }
  // A widened root must not swallow a denied read: Landlock grants by
  // hierarchy, and cordon re-applies denyRead inside it, but say it plainly
  // by never adding a root that *is* (or lies inside) a denied path.
  const fs = enforcement.filesystem
  const keep = (roots: Map<string, Denial>, kind: 'write' | 'read'): string[] =>
    [...roots].flatMap(([root, denial]) => {
      if (fs.denyRead.some((d) => isUnder(root, d))) return []
      const why = refusedRoot(root, kind, enforcement, guard)
      if (why) refused.push({ denial, reason: why })
      return why ? [] : [root]
    })
  const w = keep(write, 'write')
  const r = keep(read, 'read')
  if (w.length === 0 && r.length === 0 && !network) return { refused }
  return { widening: { write: w, read: r, network, localSockets, full: false, unsandboxed: false }, refused }
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
  return { write: ['/'], read: ['/'], network: true, localSockets: true, full: true, unsandboxed }
}

/** The profile's own network level, as these options ask for it. */
function baseNetwork(base: SandboxOptions): 'off' | 'inet' | 'on' | 'proxy' {
  const network = base.network ?? loadProfile((base.profile ?? DEFAULT_PROFILE) as string | ProfileInput).network
  // An allowlist widened for the network is every host (`inet`), as from `off`.
  return typeof network === 'string' ? network : 'proxy'
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
  // Every host is `inet`; the host's unix sockets only when asked for (`on`).
  if (widening.localSockets) out.network = 'on'
  else if (widening.network) out.network = baseNetwork(base) === 'on' ? 'on' : 'inet'
  return out
}

/** A stable text naming a widening, for session-cache keys and records. */
export function describeWidening(w: Widening): string {
  if (w.unsandboxed) return 'unsandboxed'
  if (w.full) return 'full (read masks kept)'
  const parts = [...w.write.map((p) => `write:${p}`), ...w.read.map((p) => `read:${p}`), ...(w.network ? ['network:all-hosts'] : []), ...(w.localSockets ? ['local-sockets'] : [])]
  return parts.join(',')
}
