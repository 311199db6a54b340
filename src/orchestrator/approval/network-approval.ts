/**
 * The orchestrator's side of a network allowlist: the sandbox's proxy asks
 * here about a host no entry names (or a `prompt` network_rule), and the
 * orchestrator's approvers answer (PermissionRequest hooks, the reviewer or
 * the user) with a request of kind `network` for that host and port.
 *
 * Answers are kept for the orchestrator's session, keyed by host and port
 * (`approved_for_session`), or by host (a network amendment, which also
 * appends a `network_rule` to the amendments file so later sessions read
 * it). `never` and `reject: ['network']` refuse without asking.
 */
import type { NetworkRule } from '../../exec-policy/types.js'
import type { NetworkAnswer, NetworkAsk } from '../../network/proxy/gate.js'
import { DEFAULT_PROFILE, loadProfile } from '../../profile/profiles.js'
import type { ProfileInput } from '../../profile/schema.js'
import type { SandboxOptions } from '../../sandbox/options.js'
import type { ApprovalRequest } from './approval.js'
import type { ApprovalSettings } from './approval-mode.js'
import { appendNetworkRule } from './amendments.js'
import { askApprovers, type Deciders } from './decision-flow.js'

export interface NetworkApprovalContext {
  readonly command: readonly string[]
  readonly cwd: string
  readonly rules: readonly NetworkRule[]
  readonly signal: AbortSignal
}

/** Whether these options run with a network allowlist (only then is there a proxy to serve). */
function hasAllowlist(options: SandboxOptions): boolean {
  if (options.network !== undefined) return typeof options.network === 'object'
  return typeof loadProfile((options.profile ?? DEFAULT_PROFILE) as string | ProfileInput).network === 'object'
}

export class NetworkApprovals {
  /** `host:port` (a session answer) or `host` (an amendment) → the answer. */
  private readonly cache = new Map<string, 'allow' | 'deny'>()

  constructor(
    private readonly deciders: Deciders,
    private readonly settings: ApprovalSettings,
    private readonly amendFile: string | undefined,
  ) {}

  /** `options` with the exec policy's network rules and this session's approvers, for one attempt. */
  sandboxOptions(options: SandboxOptions, ctx: NetworkApprovalContext): SandboxOptions {
    if (!hasAllowlist(options)) return options
    return {
      ...options,
      networkRules: [...(options.networkRules ?? []), ...ctx.rules],
      onNetworkRequest: options.onNetworkRequest ?? ((q) => this.ask(q, ctx)),
      persistNetworkAnswer: options.persistNetworkAnswer ?? ((host, protocol, action) => this.persist(host, protocol, action)),
    }
  }

  private cached(q: NetworkAsk): NetworkAnswer | undefined {
    const hit = this.cache.get(`${q.host}:${q.port}`) ?? this.cache.get(q.host)
    return hit === undefined ? undefined : hit === 'allow' ? 'approved_for_session' : 'denied'
  }

  private async ask(q: NetworkAsk, ctx: NetworkApprovalContext): Promise<NetworkAnswer> {
    const hit = this.cached(q)
    if (hit) return hit
    if (this.settings.mode === 'never' || this.settings.reject.has('network')) return 'denied'
    const request: ApprovalRequest = {
      kind: 'network',
      attempt: 1,
      command: ctx.command,
      cwd: ctx.cwd,
      promptClass: 'network',
      reason: `the command asks to reach ${q.host}:${q.port} (${q.protocol}): ${q.reason}`,
      network: { host: q.host, protocol: q.protocol, namedBy: 'command' },
    }
    const { decision } = await askApprovers(request, this.deciders, ctx.signal)
    if (decision === 'approved_for_session') this.cache.set(`${q.host}:${q.port}`, 'allow')
    if (typeof decision === 'object' && decision.type === 'network_amendment') {
      // The amendment names a host; it covers every port of it, as a network_rule does.
      this.cache.set(q.host, decision.action === 'allow' ? 'allow' : 'deny')
      return { type: 'network_amendment', action: decision.action }
    }
    if (decision === 'approved' || decision === 'approved_for_session') return decision
    if (typeof decision === 'object' && decision.type === 'approved_with_amendment') return 'approved' // a prefix rule says nothing about hosts: this once
    return 'denied'
  }

  private async persist(host: string, protocol: NetworkAsk['protocol'], action: 'allow' | 'deny'): Promise<void> {
    if (!this.amendFile) throw new Error('no rules file to amend (set rules or amendRules)')
    await appendNetworkRule(this.amendFile, host, protocol, action === 'allow' ? 'allow' : 'forbidden')
  }
}
