/**
 * What an approver's answer changes beyond "run / don't run": a session
 * approval remembers the request's keys; an amendment appends a rule to
 * the amendments file (picked up by the next decision); a network
 * amendment appends a `network_rule` and runs only when it allows.
 */
import type { NetworkProtocol } from '../../exec-policy/index.js'
import { appendNetworkRule, appendPrefixRule, type AmendResult } from './amendments.js'
import { isApproval, type ApprovalDecision } from './approval.js'
import type { SessionCache } from './session-cache.js'

export interface AnswerContext {
  readonly cache: SessionCache
  readonly keys: readonly string[]
  readonly amendFile: string | undefined
  readonly proposedAmendment: readonly string[] | undefined
  readonly network: { readonly host: string; readonly protocol: NetworkProtocol } | undefined
  /** Written rules are appended here. */
  readonly amendments: AmendResult[]
}

/** Apply the side effects; returns whether the attempt may run and a note when an effect could not happen. */
export async function applyAnswer(decision: ApprovalDecision, ctx: AnswerContext): Promise<{ run: boolean; note?: string }> {
  if (decision === 'approved_for_session') ctx.cache.approve(ctx.keys)
  if (typeof decision === 'string') return { run: isApproval(decision) }
  if (!ctx.amendFile) return { run: isApproval(decision), note: 'no rules file to amend (set rules or amendRules): the answer applies to this request only' }
  if (decision.type === 'approved_with_amendment') {
    const pattern = decision.pattern ?? ctx.proposedAmendment
    if (!pattern) return { run: true, note: 'no amendment can be offered for this command: approved once' }
    ctx.amendments.push(await appendPrefixRule(ctx.amendFile, pattern))
    return { run: true }
  }
  const protocol = decision.protocol ?? ctx.network?.protocol ?? 'https'
  ctx.amendments.push(await appendNetworkRule(ctx.amendFile, decision.host, protocol, decision.action === 'allow' ? 'allow' : 'forbidden'))
  return { run: decision.action === 'allow' }
}
