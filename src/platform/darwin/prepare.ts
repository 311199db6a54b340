/**
 * Planning a macOS launch: the Seatbelt profile generated from the resolved
 * permission profile, the launcher plan that carries it, and the report of
 * what it enforces — and of what it does not.
 *
 * macOS has one mechanism, so mode `auto` is Seatbelt; the Linux modes
 * (`landlock`, `namespaces`) asked for by name are an UnsupportedError, never
 * a silent substitute.
 */
import { PolicyError, UnsupportedError } from '../../errors.js'
import type { ResolvedPolicy } from '../../profile/resolve.js'
import type { PlanRequest } from '../backend.js'
import { statusOf, type Enforcement } from '../enforcement.js'
import { rlimitsOf, unsandboxedEnforcement } from '../plan-common.js'
import { loadBasePolicy } from './base-policy.js'
import type { DarwinLauncherPlan } from './launcher-plan.js'
import { seatbeltProfile, type SeatbeltNetwork } from './sbpl.js'

export interface DarwinOptions {
  /** The launcher to execute (default: the one beside the addon, or its private copy outside the write roots). */
  launcher?: string
  /** Network `off` becomes "only this port on localhost" (the allowlist proxy's). */
  proxyPort?: number
}

/** The backend's own plan of one launch. */
export interface DarwinPrepared {
  template: Omit<DarwinLauncherPlan, 'argv' | 'env'>
  enforcement: Enforcement
}

export const VERIFIED_NOTE =
  'macOS backend not yet run on macOS: the profile generator is unit-tested with golden profiles and an SBPL checker, and the launcher is built and tested on Linux against a test double of sandbox_init (docs/macos.md)'

/**
 * Not a protection the caller asked for, so a note (as Linux's Landlock-only
 * mode notes its missing pid namespace), not a `missing` entry that would
 * make every `compat: 'hard'` run refuse.
 */
const TEARDOWN_NOTE =
  'no supervisor process on macOS yet: a stop (timeout, abort) kills the command\'s process group; a descendant that left it (setsid, a double fork) keeps running, confined by the same profile, and nothing ends the command when the caller dies'

function networkOf(policy: ResolvedPolicy, proxyPort: number | undefined): SeatbeltNetwork {
  if (proxyPort !== undefined && (!Number.isInteger(proxyPort) || proxyPort < 1 || proxyPort > 65535)) {
    throw new PolicyError(`proxy port ${proxyPort} is not a TCP port (1–65535)`, { where: 'proxyPort' })
  }
  if (policy.network === 'off' && proxyPort !== undefined) return { kind: 'proxy', port: proxyPort }
  if (policy.network === 'proxy') {
    // The allowlist's proxy listens on loopback: only its port is reachable. Before it listens there is nothing to allow.
    if (policy.proxyPort === undefined) throw new PolicyError('a network allowlist needs its proxy listening before the sandbox is planned (await sandbox.ready())', { where: 'network' })
    return { kind: 'proxy', port: policy.proxyPort }
  }
  return { kind: policy.network }
}

function checkMode(mode: PlanRequest['mode']): void {
  if (mode === 'auto') return
  throw new UnsupportedError(`sandbox mode '${mode}'`, "Linux (macOS has one mechanism, Seatbelt)", 'darwin', "use mode 'auto' on macOS")
}

function notes(policy: ResolvedPolicy, network: SeatbeltNetwork, tag: string): string[] {
  const out = [VERIFIED_NOTE, TEARDOWN_NOTE, `denials are logged by the sandbox with the message ${tag} (log show --predicate 'eventMessage CONTAINS "${tag}"')`]
  if (policy.denyGlobs.length) out.push(`deny-read globs (${policy.denyGlobs.join(', ')}) are regexes checked on every open: files created later that match are denied too`)
  if (network.kind === 'proxy') out.push(`network: only localhost:${network.port} (the proxy) is reachable`)
  if (network.kind === 'inet') out.push('network inet: every host over IP; of the host\'s unix sockets only mDNSResponder\'s (name resolution) is reachable')
  out.push('no pid or IPC namespace: the command cannot signal or inspect processes outside its sandbox (Seatbelt target same-sandbox), but POSIX semaphores are shared with the host')
  out.push('no terminal of its own: stdio the caller passes as inherited (its terminal) reaches the command as it is, in a new session')
  return out
}

export function prepareDarwin(req: PlanRequest, options: DarwinOptions): DarwinPrepared {
  checkMode(req.mode)
  const { policy } = req
  if (policy.unsandboxed) return unsandboxed(policy)
  // Web Crypto's global, not node:crypto: nothing loads at import on other platforms (the CLI's start-up).
  const tag = `cordon-${Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(8))).toString('hex')}`
  const network = networkOf(policy, options.proxyPort)
  const profile = seatbeltProfile({ policy, network, tag, base: loadBasePolicy() })
  const e: Enforcement = {
    mode: 'seatbelt',
    modeReason: 'Seatbelt profile applied by the launcher with sandbox_init before exec (macOS has no other mechanism)',
    status: 'none',
    mechanisms: ['seatbelt'],
    network: policy.network,
    filesystem: { confined: true, readAll: policy.readAll, readRoots: policy.readRoots, writeRoots: policy.writeRoots, denyRead: policy.denyRead, protected: policy.protectedPaths, narrowed: [], privateDirs: [] },
    envDropped: policy.envDropped,
    missing: [],
    notes: notes(policy, network, tag),
    widening: { writeExcluded: [] },
    platform: { os: 'darwin', seatbelt: true, denialTag: tag, profileBytes: Buffer.byteLength(profile), verified: 'not yet run on macOS' },
  }
  e.status = statusOf(e)
  return { template: { mode: 'seatbelt', profile, cwd: policy.cwd, rlimits: rlimitsOf(policy) }, enforcement: e }
}

/** `unsandboxed: true`: the launcher runs the command without a profile (refused with denied reads, as on Linux). */
function unsandboxed(policy: ResolvedPolicy): DarwinPrepared {
  const platform = { os: 'darwin', seatbelt: false, denialTag: null, profileBytes: 0, verified: 'not yet run on macOS' } as const
  const enforcement = unsandboxedEnforcement(policy, platform, ['no filesystem, network or process confinement', VERIFIED_NOTE])
  return { template: { mode: 'none', profile: '', cwd: policy.cwd, rlimits: rlimitsOf(policy) }, enforcement }
}
