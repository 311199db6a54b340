/**
 * Who lets attempt 1 run: the policy (no prompt needed), a PreToolUse hook
 * that allowed it, the session cache, or the approvers (decision-flow.ts).
 * A request to leave the sandbox (`require_escalated`) keys the cache on
 * the command *and* the escalation, so a session approval of the plain
 * command never approves running it outside the sandbox; under strict
 * review it is always re-approved.
 */
import { AbortError } from '../../errors.js'
import type { CommandDecision } from '../../exec-policy/index.js'
import { prefixRuleText } from './amendments.js'
import { applyAnswer } from './answer-effects.js'
import type { ApprovalRecord, ApprovalRequest } from './approval.js'
import { escalationKey, patchKeys, runKey } from './command-key.js'
import { askApprovers, type Deciders } from './decision-flow.js'
import type { ExecRequestParsed } from '../options.js'
import type { Recorder } from '../outcome-recorder.js'
import type { Requirement } from './requirement.js'
import type { SessionCache } from './session-cache.js'

export interface FirstApprovalContext {
  readonly request: ExecRequestParsed
  /** Set when a PreToolUse hook allowed the command. */
  readonly allowedBy: string | undefined
  readonly decision: CommandDecision
  readonly requirement: Requirement
  readonly cwd: string
  readonly signal: AbortSignal
  readonly deciders: Deciders
  readonly cache: SessionCache
  readonly amendFile: string | undefined
  readonly onAbort: () => void
}

export async function approveFirst(ctx: FirstApprovalContext, rec: Recorder): Promise<ApprovalRecord> {
  const { request: req, requirement } = ctx
  if (requirement.kind === 'skip') return { decision: 'approved', source: 'policy', reason: requirement.reason }
  if (requirement.kind === 'forbidden') return { decision: 'denied', source: 'policy', reason: requirement.reason }
  if (ctx.allowedBy !== undefined) return { decision: 'approved', source: 'hook', reason: ctx.allowedBy }
  const escalated = req.sandboxPermissions === 'require_escalated'
  const keys = cacheKeys(ctx, rec.command)
  if (!(escalated && ctx.deciders.strictReview) && ctx.cache.covers(keys)) return { decision: 'approved', source: 'cache' }
  const request: ApprovalRequest = {
    kind: 'exec',
    attempt: 1,
    command: rec.command,
    cwd: ctx.cwd,
    promptClass: requirement.promptClass,
    reason: requirement.reason,
    ...(req.justification ? { justification: req.justification } : {}),
    ...(requirement.proposedAmendment ? { proposedAmendment: requirement.proposedAmendment, proposedRule: prefixRuleText(requirement.proposedAmendment) } : {}),
    ...(req.patch ? { patch: { environment: req.patch.environment, paths: req.patch.paths } } : {}),
  }
  const answer = await askApprovers(request, ctx.deciders, ctx.signal)
  rec.hookErrors.push(...answer.hookErrors)
  if (answer.decision === 'abort') {
    ctx.onAbort()
    throw new AbortError('an approver answered abort', rec.snapshot('denied'))
  }
  try {
    const effect = await applyAnswer(answer.decision, {
      cache: ctx.cache,
      keys,
      amendFile: ctx.amendFile,
      proposedAmendment: requirement.proposedAmendment,
      network: undefined,
      amendments: rec.amendments,
    })
    if (effect.note) rec.notes.push(effect.note)
    const kept = effect.run || answer.decision === 'denied' || answer.decision === 'timed_out'
    return kept ? answer.record : { ...answer.record, decision: 'denied' }
  } catch (e) {
    rec.notes.push(`amendment not written: ${(e as Error).message}`)
    return answer.record
  }
}

function cacheKeys(ctx: FirstApprovalContext, command: readonly string[]): string[] {
  const req = ctx.request
  if (req.patch) return patchKeys(req.patch.environment, ctx.cwd, req.patch.paths)
  if (req.sandboxPermissions === 'require_escalated') return [escalationKey(ctx.decision, command, 'no-sandbox')]
  return [runKey(ctx.decision, command)]
}
