/**
 * A sandbox's network proxy, when its profile has a network allowlist: one
 * proxy per sandbox (the session — answers "for the session" last as long
 * as it), started at creation, closed with the sandbox. Each run reports
 * the requests made while it ran.
 */
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SetupError } from '../errors.js'
import { makeOwnedTempDir, removeOwnedDir } from '../platform/owned-dirs.js'
import type { NetworkRule } from '../exec-policy/types.js'
import { buildNetworkLists } from '../network/policy.js'
import { newProxyToken } from '../network/proxy/token.js'
import type { LookupFunction, NetworkAnswer, NetworkAsk, NetworkProxy } from '../network/proxy/proxy.js'
import type { Enforcement, ProxyRequestRecord } from '../platform/enforcement.js'
import type { NetworkAllowlist } from '../profile/schema.js'

export interface SandboxNetworkOptions {
  /** `network_rule(...)` entries of the exec policy: they join the profile's lists. */
  networkRules?: readonly NetworkRule[] | undefined
  /** How the proxy resolves names (node:net's `lookup` shape); default node:dns. */
  networkLookup?: LookupFunction | undefined
  /** Asked for a host no entry names; absent: such hosts are denied. */
  onNetworkRequest?: ((request: NetworkAsk) => NetworkAnswer | Promise<NetworkAnswer>) | undefined
  /** Writes a network amendment the approver chose (the orchestrator appends a `network_rule`). */
  persistNetworkAnswer?: ((host: string, protocol: NetworkAsk['protocol'], action: 'allow' | 'deny') => Promise<unknown>) | undefined
}

export class SandboxNetwork {
  private proxy: NetworkProxy | undefined
  private failure: unknown
  private dir: string | undefined
  /** The credential of the proxy's TCP port (credential.ts). */
  readonly token = newProxyToken()
  readonly ready: Promise<void>

  /** Throws a PolicyError for a bad entry (a bare `*`), before anything listens. */
  constructor(allowlist: NetworkAllowlist, o: SandboxNetworkOptions) {
    const lists = buildNetworkLists(allowlist, o.networkRules ?? [])
    // The unix socket namespace mode binds into the sandbox: in a directory of
    // its own (0700, removed with the sandbox), so no other user reaches it.
    this.dir = makeOwnedTempDir(tmpdir(), 'cordon-net-')
    const socketPath = join(this.dir, 'proxy.sock')
    // Loaded when a sandbox has an allowlist: node:http and node:net cost every other start-up.
    const start = import('../network/proxy/proxy.js').then(({ startNetworkProxy }) => startNetworkProxy({ lists, lookup: o.networkLookup, ask: o.onNetworkRequest, persist: o.persistNetworkAnswer, socketPath, token: this.token }))
    this.ready = start.then(
      (p) => void (this.proxy = p),
      (err: unknown) => {
        this.failure = err
        throw err
      },
    )
    this.ready.catch(() => {}) // observed by the runs that need it
  }

  /** The port to plan with; throws when the proxy is not (yet) listening: a run must not start without it. */
  port(): number {
    if (this.failure) throw this.failure
    if (!this.proxy) throw new SetupError('network-proxy', 'listen', 11, 'EAGAIN', 'the network proxy is not listening yet: await sandbox.ready() before spawn()')
    return this.proxy.port
  }

  /** The proxy's unix socket (namespace mode), once it listens. */
  socketPath(): string | undefined {
    return this.proxy?.socketPath
  }

  /** Where this run's requests start in the proxy's records. */
  mark(): number {
    return this.proxy?.records.length ?? 0
  }

  /** The report of a run that started at `mark`: the requests made since. */
  reportSince(mark: number, e: Enforcement): Enforcement {
    if (!e.proxy || !this.proxy) return e
    const requests: ProxyRequestRecord[] = this.proxy.records.slice(mark).map((r) => ({ ...r }))
    return { ...e, proxy: { ...e.proxy, requests } }
  }

  close(): void {
    const p = this.proxy
    this.proxy = undefined
    void p?.close()
    // Now, not when the close settles: a caller that exits right after close()
    // must not leave the directory behind (closing the listener unlinks the
    // socket; a proxy still starting fails to listen on a removed path).
    const dir = this.dir
    this.dir = undefined
    if (dir) removeOwnedDir(dir)
  }
}
