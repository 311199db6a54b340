/**
 * Who lets attempt 1 run: the policy (no prompt needed), a PreToolUse hook
 * that allowed it, the session cache, or the approvers (decision-flow.ts).
 *
 * The cache key (command-key.ts) and the request name the same things —
 * the command, its directory, its stdin, the environment it adds, whether
 * it gets an interactive terminal, and the level it runs at — so what was
 * approved is exactly what runs. A request to leave the sandbox
 * (`require_escalated`) keys on the widening it gets, so a session approval
 * of the plain command never approves running it outside the sandbox; a
 * PreToolUse hook's allow does not approve that either (it decides whether
 * the command may run, not with which rights); and under strict review it
 * is always re-approved.
 */
import { AbortError } from '../../errors.js'
import type { CommandDecision } from '../../exec-policy/index.js'
import { prefixRuleText } from './amendments.js'
import { appliedRecord, applyAnswer } from './answer-effects.js'
import type { ApprovalRecord, ApprovalRequest, StdinShown } from './approval.js'
import { runKey, sha256, type Level, type RunFacts } from './command-key.js'
import { askApprovers, type Deciders } from './decision-flow.js'
import type { RuntimeDescription } from '../runtime.js'
import type { Recorder } from '../outcome-recorder.js'
import type { Requirement } from './requirement.js'
import type { SessionCache } from './session-cache.js'

export interface FirstApprovalContext {
  /** What the runtime says about the request (runtime.ts): stdin, env, justification, its approval keys. */
  readonly request: RuntimeDescription
  /** Set when a PreToolUse hook allowed the command. */
  readonly allowedBy: string | undefined
  readonly decision: CommandDecision
  readonly requirement: Requirement
  readonly cwd: string
  /** The level attempt 1 runs at: the profile's sandbox, or the widening of a `require_escalated` request. */
  readonly level: Level
  /** Extra fields for the request (the widening's scope, evidence, risks). */
  readonly shown?: Partial<ApprovalRequest>
  readonly signal: AbortSignal
  readonly deciders: Deciders
  readonly cache: SessionCache
  readonly amendFile: string | undefined
  /** Why amendments cannot be written now, if they cannot. */
  readonly amendRefused?: string | undefined
  readonly onAbort: () => void
}

/** Bytes of stdin shown in a request (the whole stdin is in the key, as a digest). */
export const STDIN_SHOWN = 64 * 1024

export async function approveFirst(ctx: FirstApprovalContext, rec: Recorder): Promise<ApprovalRecord> {
  const { request: req, requirement } = ctx
  if (requirement.kind === 'skip') return { decision: 'approved', source: 'policy', reason: requirement.reason }
  if (requirement.kind === 'forbidden') return { decision: 'denied', source: 'policy', reason: requirement.reason }
  const escalated = ctx.level !== 'sandbox'
  if (ctx.allowedBy !== undefined) {
    if (!escalated) return { decision: 'approved', source: 'hook', reason: ctx.allowedBy }
    rec.notes.push('a PreToolUse hook allowed the command; running it with wider rights than the sandbox is still asked')
  }
  const f = runFacts(ctx, rec.command)
  const keys = req.approval ? req.approval.keys(f, ctx.level) : [runKey(f, ctx.level)]
  if (!(escalated && ctx.deciders.strictReview) && ctx.cache.covers(keys)) return { decision: 'approved', source: 'cache' }
  const request: ApprovalRequest = {
    // The runtime's fields first: what the orchestrator decided cannot be overridden by them.
    ...req.approval?.shown,
    kind: 'exec',
    attempt: 1,
    command: rec.command,
    cwd: ctx.cwd,
    promptClass: requirement.promptClass,
    reason: withInteractive(requirement.reason, req),
    ...(req.justification ? { justification: req.justification } : {}),
    ...(requirement.proposedAmendment ? { proposedAmendment: requirement.proposedAmendment, proposedRule: prefixRuleText(requirement.proposedAmendment) } : {}),
    ...(requirement.promptedBy ? { promptedBy: requirement.promptedBy } : {}),
    ...shownInput(req),
    ...ctx.shown,
  }
  const answer = await askApprovers(request, ctx.deciders, ctx.signal)
  rec.hookErrors.push(...answer.hookErrors)
  if (answer.decision === 'abort') {
    ctx.onAbort()
    throw new AbortError('an approver answered abort', rec.snapshot('denied'))
  }
  const effect = await applyAnswer(answer.decision, {
    cache: ctx.cache,
    keys,
    amendFile: ctx.amendFile,
    amendRefused: ctx.amendRefused,
    proposedAmendment: requirement.proposedAmendment,
    network: undefined,
    amendments: rec.amendments,
  })
  if (effect.note) rec.notes.push(effect.note)
  return appliedRecord(answer.record, effect)
}

function runFacts(ctx: FirstApprovalContext, command: readonly string[]): RunFacts {
  return { decision: ctx.decision, command, cwd: ctx.cwd, input: ctx.request.input, env: ctx.request.env, interactive: ctx.request.interactive }
}

/** `reason`, saying that an interactive request's later input goes unreviewed (the approver may read only the reason). */
export function withInteractive(reason: string, req: Pick<RuntimeDescription, 'interactive'>): string {
  if (!req.interactive) return reason
  return `${reason}; it runs on an interactive terminal: what is typed into it later is not reviewed by the policy or an approver and runs with the rights approved here`
}

/** The request's stdin, environment additions and terminal, as an approval request shows them. */
export function shownInput(req: Pick<RuntimeDescription, 'input' | 'env' | 'interactive'>): Pick<ApprovalRequest, 'stdin' | 'env' | 'interactive'> {
  const out: { stdin?: StdinShown; env?: Record<string, string>; interactive?: true } = {}
  if (req.interactive) out.interactive = true
  if (req.input !== undefined) {
    const bytes = Buffer.byteLength(req.input, 'utf8')
    const text = bytes <= STDIN_SHOWN ? req.input : Buffer.from(req.input, 'utf8').subarray(0, STDIN_SHOWN).toString('utf8')
    out.stdin = { text, bytes, sha256: sha256(req.input), truncated: bytes > STDIN_SHOWN }
  }
  if (req.env && Object.keys(req.env).length > 0) out.env = { ...req.env }
  return out
}
