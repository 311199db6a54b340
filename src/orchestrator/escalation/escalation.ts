/**
 * The one escalated retry. After attempt 1 was denied by the sandbox, a
 * second attempt runs only when
 *   1. the tool allows escalation (`escalateOnFailure`),
 *   2. the approval mode allows it (not `never`, `escalation` not rejected),
 *   3. something denied can be widened (widen.ts: never a denied read), and
 *   4. it is approved. With strict review the reviewer re-approves it: no
 *      session cache, no network rule answers for it.
 * It widens only what was denied. There is no third attempt.
 */
import { AbortError } from '../../errors.js'
import type { CommandDecision, ExecPolicy } from '../../exec-policy/index.js'
import type { Sandbox } from '../../sandbox/sandbox.js'
import type { RunOptions, SandboxOptions } from '../../sandbox/options.js'
import type { AmendResult } from '../approval/amendments.js'
import { applyAnswer } from '../approval/answer-effects.js'
import { mayAsk, type ApprovalSettings } from '../approval/approval-mode.js'
import type { ApprovalRecord, ApprovalRequest } from '../approval/approval.js'
import { runAttempt, type AttemptRecord, type OutputSpec } from '../attempt.js'
import { escalationKey } from '../approval/command-key.js'
import { askApprovers, type Deciders } from '../approval/decision-flow.js'
import type { Denial } from '../denial/denial.js'
import type { ExecRequestParsed } from '../options.js'
import type { Escalation } from '../outcome.js'
import type { SessionCache } from '../approval/session-cache.js'
import { applyWidening, describeWidening, planWidening, type Widening } from './widen.js'

export interface EscalationContext {
  readonly request: ExecRequestParsed
  readonly command: readonly string[]
  readonly cwd: string
  readonly decision: CommandDecision
  readonly policy: ExecPolicy
  readonly settings: ApprovalSettings
  readonly toolAllows: boolean
  readonly base: SandboxOptions
  readonly deciders: Deciders
  readonly cache: SessionCache
  readonly amendFile: string | undefined
  readonly amendments: AmendResult[]
  readonly notes: string[]
  readonly hookErrors: string[]
  readonly signal: AbortSignal
  readonly run: RunOptions
  readonly output: OutputSpec
  readonly createSandbox: (options: SandboxOptions) => Sandbox
  readonly onAbort: () => void
}

export async function escalate(ctx: EscalationContext, first: AttemptRecord): Promise<{ escalation: Escalation; attempt?: AttemptRecord }> {
  const enforcement = first.sandbox.enforcement ?? first.result?.enforcement
  if (!enforcement) return { escalation: { attempted: false, refused: ['no enforcement report for the first attempt'] } }
  const plan = planWidening(first.denials, enforcement)
  const refused = plan.refused.map((r) => `${describeDenial(r.denial)}: ${r.reason}`)
  const gate = gateReason(ctx)
  if (gate) return { escalation: { attempted: false, refused: [...refused, gate] } }
  if (!plan.widening) return { escalation: { attempted: false, refused: refused.length ? refused : ['nothing denied can be widened'] } }
  // A first attempt that was already widened is widened further, never replaced.
  const widening = merge(first.sandbox.widening, plan.widening)
  const approval = await approveRetry(ctx, widening, first.denials)
  if (approval.decision !== 'approved') return { escalation: { attempted: false, widening, approval: approval.record, refused } }
  const attempt = await runAttempt({
    index: 2,
    options: applyWidening(ctx.base, widening, enforcement.widening),
    widening,
    approval: approval.record,
    command: ctx.command,
    cwd: ctx.cwd,
    run: ctx.run,
    output: ctx.output,
    notes: ctx.notes,
    createSandbox: ctx.createSandbox,
  })
  return { escalation: { attempted: true, widening, approval: approval.record, refused }, attempt }
}

function gateReason(ctx: EscalationContext): string | undefined {
  if (!ctx.toolAllows) return 'the tool does not allow escalation'
  if (ctx.settings.mode === 'never') return 'approval mode never: no retry'
  if (!mayAsk(ctx.settings, 'escalation')) return 'escalation prompts are rejected'
  return undefined
}

async function approveRetry(ctx: EscalationContext, widening: Widening, denials: readonly Denial[]): Promise<{ decision: 'approved' | 'refused'; record: ApprovalRecord }> {
  const strict = ctx.deciders.strictReview
  const key = escalationKey(ctx.decision, ctx.command, describeWidening(widening))
  const target = networkTarget(denials)
  if (!strict && ctx.cache.covers([key])) return { decision: 'approved', record: { decision: 'approved', source: 'cache' } }
  const byRule = target && widening.network ? ctx.policy.decideNetwork(target.host, target.protocol).decision : undefined
  // A forbidding network rule holds even under strict review; an allowing one answers only outside it.
  if (byRule === 'forbidden') return { decision: 'refused', record: { decision: 'denied', source: 'policy', reason: `network_rule forbids ${target?.host}` } }
  if (!strict && byRule === 'allow' && onlyNetwork(widening)) return { decision: 'approved', record: { decision: 'approved', source: 'policy', reason: `network_rule allows ${target?.host}` } }
  const request: ApprovalRequest = {
    kind: 'escalation',
    attempt: 2,
    command: ctx.command,
    cwd: ctx.cwd,
    promptClass: 'escalation',
    reason: `the sandbox denied ${denials.map(describeDenial).join('; ')}; retry with ${describeWidening(widening)}`,
    ...(ctx.request.justification ? { justification: ctx.request.justification } : {}),
    widening,
    denials,
    ...(target ? { network: target } : {}),
  }
  const answer = await askApprovers(request, ctx.deciders, ctx.signal)
  ctx.hookErrors.push(...answer.hookErrors)
  if (answer.decision === 'abort') {
    ctx.onAbort()
    throw new AbortError('an approver answered abort')
  }
  try {
    const effect = await applyAnswer(answer.decision, {
      cache: ctx.cache,
      keys: [key],
      amendFile: ctx.amendFile,
      proposedAmendment: undefined,
      network: target,
      amendments: ctx.amendments,
    })
    if (effect.note) ctx.notes.push(effect.note)
    const record = effect.run || answer.decision === 'denied' || answer.decision === 'timed_out' ? answer.record : { ...answer.record, decision: 'denied' as const }
    return { decision: effect.run ? 'approved' : 'refused', record }
  } catch (e) {
    ctx.notes.push(`amendment not written: ${(e as Error).message}`)
    return { decision: 'approved', record: answer.record }
  }
}

function networkTarget(denials: readonly Denial[]): ApprovalRequest['network'] {
  const d = denials.find((x) => x.operation === 'network' && x.host !== undefined)
  return d?.host !== undefined ? { host: d.host, protocol: d.protocol ?? 'https' } : undefined
}

function onlyNetwork(w: Widening): boolean {
  return w.network && w.write.length === 0 && w.read.length === 0 && !w.full
}

function merge(a: Widening | undefined, b: Widening): Widening {
  if (!a) return b
  return {
    write: [...new Set([...a.write, ...b.write])],
    read: [...new Set([...a.read, ...b.read])],
    network: a.network || b.network,
    full: a.full,
    unsandboxed: a.unsandboxed,
  }
}

export function describeDenial(d: Denial): string {
  if (d.operation === 'network') return `network${d.host ? ` to ${d.host}${d.port ? `:${d.port}` : ''}` : ''} (network is off)`
  if (d.operation === 'syscall') return 'a system call (seccomp)'
  return `${d.operation} of ${d.path} (${d.rule})`
}
