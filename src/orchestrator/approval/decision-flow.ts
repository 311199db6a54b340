/**
 * Who answers an approval request, in order: PermissionRequest hooks
 * (allow / deny / no decision), then the reviewer when strict automatic
 * review is on, else the user callback. Nobody to ask means denied.
 * Before this runs, the orchestrator has already consulted PreToolUse
 * hooks, the policy and the session cache (orchestrator.ts).
 */
import { AbortError } from '../../errors.js'
import { parseApprovalDecision, type ApprovalDecision, type ApprovalRecord, type ApprovalRequest, type Approver } from './approval.js'
import { decisionName } from './approval.js'
import { runHook, type Hook, type PermissionRequestInput, type PermissionRequestResult } from '../hooks/hooks.js'

export interface Deciders {
  readonly permissionHooks: readonly Hook<PermissionRequestInput, PermissionRequestResult>[]
  readonly hookTimeoutMs: number
  readonly onApproval: Approver | undefined
  readonly reviewer: Approver | undefined
  readonly strictReview: boolean
  /** How long a reviewer or user may take; then the answer is `timed_out`. */
  readonly approvalTimeoutMs: number | undefined
}

export interface Answer {
  readonly decision: ApprovalDecision
  readonly record: ApprovalRecord
  readonly hookErrors: readonly string[]
}

export async function askApprovers(request: ApprovalRequest, d: Deciders, signal: AbortSignal): Promise<Answer> {
  const hookErrors: string[] = []
  for (const hook of d.permissionHooks) {
    const run = await runHook<PermissionRequestInput, PermissionRequestResult>(hook, { event: 'PermissionRequest', request }, d.hookTimeoutMs, signal)
    if (signal.aborted) throw new AbortError('aborted while a PermissionRequest hook ran')
    if (run.error) hookErrors.push(`PermissionRequest: ${run.error}`) // no decision: the next one is asked
    const verdict = run.output?.decision
    if (verdict) {
      const decision: ApprovalDecision = verdict === 'allow' ? 'approved' : 'denied'
      return { decision, record: record(decision, 'hook', run.output?.reason), hookErrors }
    }
  }
  const approver = d.strictReview ? d.reviewer : d.onApproval
  const source = d.strictReview ? 'reviewer' : 'user'
  if (!approver) return { decision: 'denied', record: record('denied', 'policy', 'nobody to ask: no onApproval callback'), hookErrors }
  const { decision, invalid } = await callApprover(approver, request, d.approvalTimeoutMs, signal)
  return { decision, record: record(decision, source, invalid), hookErrors }
}

async function callApprover(approver: Approver, request: ApprovalRequest, timeoutMs: number | undefined, signal: AbortSignal) {
  let timer: NodeJS.Timeout | undefined
  let onAbort: (() => void) | undefined
  const limits = new Promise<unknown>((resolve, reject) => {
    if (timeoutMs !== undefined) timer = setTimeout(() => resolve('timed_out'), timeoutMs)
    onAbort = () => reject(new AbortError('aborted while waiting for approval'))
    if (signal.aborted) onAbort()
    else signal.addEventListener('abort', onAbort, { once: true })
  })
  const answer = (async () => {
    try {
      return await approver(request, { signal })
    } catch (e) {
      return { __threw: (e as Error)?.message ?? String(e) }
    }
  })()
  try {
    const raw = await Promise.race([answer, limits])
    if (raw && typeof raw === 'object' && '__threw' in raw) return { decision: 'denied' as const, invalid: `approver threw: ${String(raw.__threw)}` }
    return parseApprovalDecision(raw)
  } finally {
    clearTimeout(timer)
    if (onAbort) signal.removeEventListener('abort', onAbort)
  }
}

function record(decision: ApprovalDecision, source: ApprovalRecord['source'], reason: string | undefined): ApprovalRecord {
  return reason !== undefined ? { decision: decisionName(decision), source, reason } : { decision: decisionName(decision), source }
}
