/**
 * What an approver's answer changes beyond "run / don't run": a session
 * approval remembers the request's keys; an amendment appends a rule to
 * the amendments file (picked up by the next decision); a network
 * amendment appends a `network_rule` and runs only when it allows.
 *
 * Whether the attempt runs is the answer's alone: a rule that cannot be
 * written (no amendments file, an unwritable one, a host that is no host)
 * never turns a "no" into a run, nor a "yes" into a silent failure. The
 * failure is reported; the answer holds for this request only.
 */
import type { NetworkProtocol } from '../../exec-policy/index.js'
import { appendNetworkRule, appendPrefixRule, type AmendResult } from './amendments.js'
import { isApproval, type ApprovalDecision, type ApprovalRecord } from './approval.js'
import type { SessionCache } from './session-cache.js'

export interface AnswerContext {
  readonly cache: SessionCache
  readonly keys: readonly string[]
  readonly amendFile: string | undefined
  readonly proposedAmendment: readonly string[] | undefined
  readonly network: { readonly host: string; readonly protocol: NetworkProtocol } | undefined
  /** Written rules are appended here. */
  readonly amendments: AmendResult[]
  /** Why amendments must not be written now (e.g. the amendments file is one the sandbox could write). */
  readonly amendRefused?: string | undefined
}

export interface AnswerEffect {
  /** The attempt may run: the answer approved it. Never changed by what could or could not be written. */
  readonly run: boolean
  /** Something the answer asked for that did not happen (an amendment not written), for the outcome's notes. */
  readonly note?: string
}

/** Apply the side effects. Never rejects: a failure to amend is a note, and `run` stays the answer's. */
export async function applyAnswer(decision: ApprovalDecision, ctx: AnswerContext): Promise<AnswerEffect> {
  const run = isApproval(decision)
  if (decision === 'approved_for_session') ctx.cache.approve(ctx.keys)
  if (typeof decision === 'string') return { run }
  const outcome = run ? 'the answer applies to this request only' : 'the denial stands for this request'
  if (!ctx.amendFile) return { run, note: `no rules file to amend (set rules or amendRules): ${outcome}` }
  if (ctx.amendRefused) return { run, note: `amendment not written (${ctx.amendRefused}): ${outcome}` }
  try {
    if (decision.type === 'approved_with_amendment') {
      const pattern = decision.pattern ?? ctx.proposedAmendment
      if (!pattern) return { run, note: 'no amendment can be offered for this command: approved once' }
      ctx.amendments.push(await appendPrefixRule(ctx.amendFile, pattern))
    } else {
      const protocol = decision.protocol ?? ctx.network?.protocol ?? 'https'
      ctx.amendments.push(await appendNetworkRule(ctx.amendFile, decision.host, protocol, decision.action === 'allow' ? 'allow' : 'forbidden'))
    }
    return { run }
  } catch (e) {
    return { run, note: `amendment not written (${(e as Error)?.message ?? String(e)}): ${outcome}` }
  }
}

/**
 * The record of an answer once applied: an answer that does not let the
 * attempt run is recorded as `denied` (a network amendment that denies,
 * say), with what could not be written in its reason.
 */
export function appliedRecord(record: ApprovalRecord, effect: AnswerEffect): ApprovalRecord {
  if (effect.run || record.decision === 'denied' || record.decision === 'timed_out') return record
  const reason = [record.reason, `answered ${record.decision}`].filter((r) => r !== undefined).join('; ')
  return { ...record, decision: 'denied', reason }
}
