/**
 * The proxy's one decision point: may this connection go to host:port, and
 * to which address? Every protocol front end (HTTP CONNECT, plain HTTP,
 * SOCKS5) asks here, so the rules, the approvals and the records are the
 * same whichever way a client speaks.
 *
 * Order: IP literal → allowlist (deny wins) → session answers → approver →
 * name resolution by the proxy itself → address check. The connection then
 * goes to the address vetted here, never to a second lookup of the name
 * (a rebinding DNS server gets one answer, and it is checked).
 */
import { lookup as dnsLookup } from 'node:dns'
import { isIP } from 'node:net'
import type { ProxyRequestRecord } from '../../platform/enforcement.js'
import { canonicalHost, parseHostPattern } from '../host-pattern.js'
import { specialAddress } from '../addresses.js'
import { addressAllowed, decideHost, withEntry, type NetworkLists, type NetworkSource } from '../policy.js'

export type ProxyProtocol = ProxyRequestRecord['protocol']

/** node:net's `lookup` option: `(hostname, { all: true }, (err, addresses) => …)`. */
export type LookupFunction = (
  hostname: string,
  options: { all: true },
  callback: (err: NodeJS.ErrnoException | null, addresses: { address: string; family: number }[] | string, family?: number) => void,
) => void

/** What the approver is asked: one host and port, never a whole domain. */
export interface NetworkAsk {
  readonly host: string
  readonly port: number
  readonly protocol: ProxyProtocol
  readonly reason: string
}

/**
 * The answers an approver may give (a subset of the orchestrator's
 * ApprovalDecision): once, for the session (this host:port), or a
 * network amendment that `persist` writes down and the session keeps.
 */
export type NetworkAnswer = 'approved' | 'approved_for_session' | 'denied' | 'timed_out' | 'abort' | { type: 'network_amendment'; host?: string; action: 'allow' | 'deny' }

export interface GateOptions {
  lists: NetworkLists
  /** Resolve names (default: node:dns lookup). The tests map names to 127.0.0.x servers with it. */
  lookup?: LookupFunction | undefined
  /** Asked for hosts no entry names (and `prompt` rules); absent: such hosts are denied. */
  ask?: ((request: NetworkAsk) => Promise<NetworkAnswer> | NetworkAnswer) | undefined
  /** Writes a network amendment (a `network_rule`) when the approver chose one. */
  persist?: ((host: string, protocol: ProxyProtocol, action: 'allow' | 'deny') => Promise<unknown>) | undefined
}

export type GateVerdict = { ok: true; address: string; family: 4 | 6; record: ProxyRequestRecord } | { ok: false; record: ProxyRequestRecord }

/** Bounded: a command looping on requests cannot grow the proxy's memory without limit. */
const MAX_RECORDS = 10_000

function isHostName(host: string): boolean {
  try {
    return parseHostPattern(host, 'target').kind !== 'below'
  } catch {
    return false
  }
}

export class NetworkGate {
  private lists: NetworkLists
  readonly records: ProxyRequestRecord[] = []
  /** Questions in flight, by host:port: concurrent connections to one host ask once. */
  private readonly pending = new Map<string, Promise<{ allow: boolean; source: NetworkSource; reason: string }>>()

  constructor(private readonly options: GateOptions) {
    this.lists = options.lists
  }

  async check(rawHost: string, port: number, protocol: ProxyProtocol): Promise<GateVerdict> {
    const host = canonicalHost(rawHost)
    const refuse = (source: string, reason: string): GateVerdict => ({ ok: false, record: this.record({ host, port, protocol, decision: 'denied', source, reason }) })
    if (!(port >= 1 && port <= 65535)) return refuse('proxy', `bad port ${port}`)
    // A target that is no host name (SOCKS5 carries any bytes; `*.x`, spaces,
    // controls) is refused before any rule or approver sees it.
    if (!isHostName(host)) return refuse('proxy', `${JSON.stringify(host.slice(0, 80))} is not a host name or IP address`)
    if (isIP(host)) return this.checkLiteral(host, port, protocol, refuse)
    const d = decideHost(this.lists, host, port, this.options.ask !== undefined)
    let source: string = d.source
    let reason = d.reason
    if (d.decision === 'deny') return refuse(source, reason)
    if (d.decision === 'ask') {
      const answer = await this.askOnce(host, port, protocol, d.reason)
      if (!answer.allow) return refuse(answer.source, answer.reason)
      ;({ source, reason } = answer)
    }
    const resolved = await this.resolve(host, port)
    if ('error' in resolved) return refuse('proxy', resolved.error)
    return { ok: true, address: resolved.address, family: resolved.family, record: this.record({ host, port, protocol, decision: 'allowed', source, reason, address: resolved.address }) }
  }

  /** A CONNECT to an address, not a name: only an allow entry naming that address lets it through. */
  private checkLiteral(host: string, port: number, protocol: ProxyProtocol, refuse: (s: string, r: string) => GateVerdict): GateVerdict {
    if (!addressAllowed(this.lists, host, port)) return refuse('proxy', `${host} is an IP address: only an allow entry naming that address lets it through`)
    return { ok: true, address: host, family: isIP(host) as 4 | 6, record: this.record({ host, port, protocol, decision: 'allowed', source: 'profile', reason: `allowed by the address entry ${host}`, address: host }) }
  }

  private askOnce(host: string, port: number, protocol: ProxyProtocol, why: string) {
    const key = `${host}:${port}`
    let p = this.pending.get(key)
    if (!p) {
      p = this.ask(host, port, protocol, why).finally(() => this.pending.delete(key))
      this.pending.set(key, p)
    }
    return p
  }

  private async ask(host: string, port: number, protocol: ProxyProtocol, why: string): Promise<{ allow: boolean; source: NetworkSource; reason: string }> {
    // A session answer given while this one waited (another host:port key) is not this one's; but
    // the lists may have changed since decideHost ran: decide again before asking.
    const again = decideHost(this.lists, host, port, true)
    if (again.decision !== 'ask') return { allow: again.decision === 'allow', source: again.source, reason: again.reason }
    let answer: NetworkAnswer
    try {
      answer = await this.options.ask!({ host, port, protocol, reason: why })
    } catch (err) {
      return { allow: false, source: 'user', reason: `the approver failed: ${(err as Error)?.message ?? String(err)}` }
    }
    return this.apply(answer, host, port, protocol)
  }

  private async apply(answer: NetworkAnswer, host: string, port: number, protocol: ProxyProtocol): Promise<{ allow: boolean; source: NetworkSource; reason: string }> {
    if (answer === 'approved') return { allow: true, source: 'user', reason: 'approved once' }
    if (answer === 'approved_for_session') {
      this.lists = withEntry(this.lists, 'allow', host, port, 'session', 'approved for the session')
      return { allow: true, source: 'user', reason: 'approved for the session' }
    }
    if (typeof answer === 'object' && answer?.type === 'network_amendment' && (answer.action === 'allow' || answer.action === 'deny')) {
      const allow = answer.action === 'allow'
      // The session keeps the answer at once; the rules file keeps it for later sessions.
      this.lists = withEntry(this.lists, allow ? 'allow' : 'deny', host, undefined, 'session', `network amendment: ${answer.action}`)
      try {
        await this.options.persist?.(host, protocol, answer.action)
      } catch (err) {
        return { allow: false, source: 'user', reason: `the network amendment could not be written (${(err as Error)?.message ?? String(err)}); refused` }
      }
      return { allow, source: 'user', reason: `network amendment: ${answer.action}` }
    }
    // Anything else — denied, timed out, aborted, or not an answer at all — refuses (fail closed).
    return { allow: false, source: 'user', reason: `the approver answered ${typeof answer === 'string' ? answer : JSON.stringify(answer)}` }
  }

  private resolve(host: string, port: number): Promise<{ address: string; family: 4 | 6 } | { error: string }> {
    const lookup = this.options.lookup ?? (dnsLookup as unknown as LookupFunction)
    return new Promise((done) => {
      try {
        lookup(host, { all: true }, (err, addresses, family) => {
          if (err) return done({ error: `${host} does not resolve (${err.code ?? err.message})` })
          const list = typeof addresses === 'string' ? [{ address: addresses, family: family ?? isIP(addresses) }] : addresses
          done(this.pick(host, port, list))
        })
      } catch (err) {
        done({ error: `${host} does not resolve (${(err as Error).message})` })
      }
    })
  }

  /** The first address that is public, or that an allow entry names itself; else why none is. */
  private pick(host: string, port: number, list: { address: string; family: number }[]): { address: string; family: 4 | 6 } | { error: string } {
    if (list.length === 0) return { error: `${host} has no address` }
    for (const a of list) {
      const family = isIP(a.address)
      if (family === 0) continue
      if (specialAddress(a.address) === undefined || addressAllowed(this.lists, a.address, port)) return { address: a.address, family: family as 4 | 6 }
    }
    const a = list[0]!.address
    return { error: `${host} resolves to ${a}, a ${specialAddress(a) ?? 'invalid'} address; only an allow entry naming the address itself lets a name reach it (DNS rebinding, cloud metadata)` }
  }

  private record(r: ProxyRequestRecord): ProxyRequestRecord {
    if (this.records.length < MAX_RECORDS) this.records.push(r)
    return r
  }
}
