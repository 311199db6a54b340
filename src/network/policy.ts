/**
 * The network allowlist: which hosts a proxied sandbox may reach.
 *
 * Entries come from the profile (`network: { allow, deny }`), from
 * `network_rule(...)` entries of exec-policy rules files (Codex syntax:
 * `decision="allow" | "forbidden" | "prompt"`), and from answers given
 * during a session. Deny wins over everything, wherever it comes from; then
 * allow; then ask (a `prompt` rule, or any host no entry names when an
 * approver is present); else the host is denied as "not in the allowlist".
 */
import type { NetworkRule } from '../exec-policy/types.js'
import { canonicalHost, matchesHost, parseHostPattern, type HostPattern } from './host-pattern.js'

/** Who put an entry (or a decision) there. */
export type NetworkSource = 'profile' | 'rules' | 'session' | 'user' | 'default'

export interface NetworkEntry {
  readonly pattern: HostPattern
  readonly source: NetworkSource
  /** The rule's justification, or where it was written (`file:line`). */
  readonly reason: string | undefined
}

export interface NetworkLists {
  readonly allow: readonly NetworkEntry[]
  readonly deny: readonly NetworkEntry[]
  /** `network_rule(..., decision="prompt")`: always asked, even when another entry allows. */
  readonly ask: readonly NetworkEntry[]
}

export interface HostDecision {
  readonly decision: 'allow' | 'deny' | 'ask'
  readonly source: NetworkSource
  readonly reason: string
  /** The entry that decided, as written. */
  readonly rule?: string
}

/** The profile's lists as written: `{ allow: [...], deny: [...] }`. */
export interface NetworkListsInput {
  readonly allow: readonly string[]
  readonly deny?: readonly string[] | undefined
}

function entries(list: readonly string[], what: string, source: NetworkSource): NetworkEntry[] {
  return list.map((raw, i) => ({ pattern: parseHostPattern(raw, `network.${what}[${i}]`), source, reason: undefined }))
}

function ruleEntry(rule: NetworkRule): NetworkEntry {
  const at = `${rule.location.file}:${rule.location.line}`
  const pattern = parseHostPattern(rule.host.includes(':') && !rule.host.includes('.') ? `[${rule.host}]` : rule.host, at)
  return { pattern, source: 'rules', reason: rule.justification ?? `network_rule at ${at}` }
}

/**
 * Build the lists from a profile and the rules files' `network_rule`s. Bad
 * entries throw a PolicyError naming the entry; nothing is half-built.
 * `socks5_udp` rules are ignored: the proxy relays TCP only.
 */
export function buildNetworkLists(profile: NetworkListsInput, rules: readonly NetworkRule[] = []): NetworkLists {
  const allow = entries(profile.allow, 'allow', 'profile')
  const deny = entries(profile.deny ?? [], 'deny', 'profile')
  const ask: NetworkEntry[] = []
  for (const rule of rules) {
    if (rule.protocol === 'socks5_udp') continue
    const e = ruleEntry(rule)
    if (rule.decision === 'forbidden') deny.push(e)
    else if (rule.decision === 'prompt') ask.push(e)
    else allow.push(e)
  }
  return { allow, deny, ask }
}

/** The lists with one more entry (a session answer), unchanged otherwise. */
export function withEntry(lists: NetworkLists, which: 'allow' | 'deny', host: string, port: number | undefined, source: NetworkSource, reason: string): NetworkLists {
  const raw = port === undefined ? host : `${host.includes(':') ? `[${host}]` : host}:${port}`
  const entry: NetworkEntry = { pattern: parseHostPattern(raw, 'network answer'), source, reason }
  return { ...lists, [which]: [...lists[which], entry] }
}

function first(list: readonly NetworkEntry[], host: string, port: number): NetworkEntry | undefined {
  return list.find((e) => matchesHost(e.pattern, host, port))
}

/** Decide one host:port. `canAsk`: an approver is there to answer hosts no entry names. */
export function decideHost(lists: NetworkLists, rawHost: string, port: number, canAsk: boolean): HostDecision {
  const host = canonicalHost(rawHost)
  const denied = first(lists.deny, host, port)
  if (denied) return { decision: 'deny', source: denied.source, reason: denied.reason ?? `denied by '${denied.pattern.raw}'`, rule: denied.pattern.raw }
  // An answer given in this session settles a `prompt` rule for the session.
  const answered = first(lists.allow.filter((e) => e.source === 'session'), host, port)
  if (answered) return { decision: 'allow', source: 'session', reason: answered.reason ?? 'approved for the session', rule: answered.pattern.raw }
  const asked = first(lists.ask, host, port)
  if (asked) return canAsk ? { decision: 'ask', source: asked.source, reason: asked.reason ?? `'${asked.pattern.raw}' asks`, rule: asked.pattern.raw } : { decision: 'deny', source: asked.source, reason: `'${asked.pattern.raw}' needs an approval and no approver is set`, rule: asked.pattern.raw }
  const allowed = first(lists.allow, host, port)
  if (allowed) return { decision: 'allow', source: allowed.source, reason: allowed.reason ?? `allowed by '${allowed.pattern.raw}'`, rule: allowed.pattern.raw }
  if (canAsk) return { decision: 'ask', source: 'default', reason: `${host}:${port} is not in the allowlist` }
  return { decision: 'deny', source: 'default', reason: `${host}:${port} is not in the allowlist` }
}

/**
 * Is this address named by an allow entry of its own (an IP literal)? Only
 * that lets a connection reach a loopback, private or link-local address:
 * an allowed *name* that resolves there is refused (DNS rebinding, cloud
 * metadata at 169.254.169.254).
 */
export function addressAllowed(lists: NetworkLists, address: string, port: number): boolean {
  const a = canonicalHost(address)
  return !first(lists.deny, a, port) && lists.allow.some((e) => e.pattern.kind === 'ip' && matchesHost(e.pattern, a, port))
}
