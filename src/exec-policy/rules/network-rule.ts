/**
 * `network_rule(host=…, protocol=…, decision=…)`: host normalisation,
 * protocol names (with Codex's aliases) and matching a request against the
 * merged rules. The host must be one specific name or IP; wildcards are
 * refused so a rule never quietly covers more than it says.
 */
import { stricter, type Decision, type NetworkProtocol, type NetworkRule, type Policy } from '../types.js'

const PROTOCOL_ALIASES: Record<string, NetworkProtocol> = {
  http: 'http',
  https: 'https',
  https_connect: 'https',
  'http-connect': 'https',
  socks5_tcp: 'socks5_tcp',
  socks5_udp: 'socks5_udp',
}

export function parseProtocol(raw: string): NetworkProtocol | undefined {
  return Object.hasOwn(PROTOCOL_ALIASES, raw) ? PROTOCOL_ALIASES[raw] : undefined
}

/** Network rules also accept `deny` as a spelling of `forbidden`. */
export function parseNetworkDecision(raw: string): Decision | undefined {
  if (raw === 'deny') return 'forbidden'
  return raw === 'allow' || raw === 'prompt' || raw === 'forbidden' ? raw : undefined
}

/** Normalise a host for storage and lookup, or return an error message. */
export function normalizeHost(raw: string): { host: string } | { error: string } {
  let host = raw.trim()
  if (host === '') return { error: 'network_rule host cannot be empty' }
  if (/:\/\/|[/?#]/.test(host)) return { error: 'network_rule host must be a host name or IP literal, without scheme or path' }
  if (host.startsWith('[')) {
    const close = host.indexOf(']')
    const suffix = close < 0 ? '' : host.slice(close + 1)
    if (close < 0 || (suffix !== '' && !/^:[0-9]+$/.test(suffix))) return { error: `network_rule host has an invalid bracketed IPv6 literal: ${raw}` }
    host = host.slice(1, close)
  } else if (/^[^:]+:[0-9]+$/.test(host)) {
    host = host.slice(0, host.lastIndexOf(':'))
  }
  host = host.replace(/\.+$/, '').trim().toLowerCase()
  if (host === '') return { error: 'network_rule host cannot be empty' }
  if (host.includes('*')) return { error: 'network_rule host must be a specific host; wildcards are not allowed' }
  if (/\s/.test(host)) return { error: 'network_rule host cannot contain whitespace' }
  return { host }
}

export interface NetworkDecision {
  /** Undefined when no rule matched: the caller's default applies. */
  readonly decision: Decision | undefined
  readonly matchedRules: readonly NetworkRule[]
}

/** Strictest decision of the rules naming exactly this host and protocol. */
export function decideNetwork(policy: Policy, host: string, protocol: string): NetworkDecision {
  const normalized = normalizeHost(host)
  const proto = parseProtocol(protocol)
  if ('error' in normalized || proto === undefined) return { decision: undefined, matchedRules: [] }
  const matchedRules = policy.networkRules.filter((r) => r.host === normalized.host && r.protocol === proto)
  let decision: Decision | undefined
  for (const rule of matchedRules) decision = decision ? stricter(decision, rule.decision) : rule.decision
  return { decision, matchedRules }
}
