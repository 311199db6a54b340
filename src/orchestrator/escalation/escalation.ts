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
import type { Lease } from '../sandbox-pool.js'
import type { SandboxOptions } from '../../sandbox/options.js'
import type { AmendResult } from '../approval/amendments.js'
import { appliedRecord, applyAnswer } from '../approval/answer-effects.js'
import { mayAsk, type ApprovalSettings } from '../approval/approval-mode.js'
import type { ApprovalRecord, ApprovalRequest } from '../approval/approval.js'
import { runAttempt, type AttemptSpec, type Ran } from '../attempt.js'
import { runKey, type Level, type RunFacts } from '../approval/command-key.js'
import { shownInput, withInteractive } from '../approval/first-approval.js'
import { askApprovers, type Deciders } from '../approval/decision-flow.js'
import type { Denial } from '../denial/denial.js'
import type { RuntimeDescription } from '../runtime.js'
import type { Escalation } from '../outcome.js'
import type { SessionCache } from '../approval/session-cache.js'
import { describeWidening, planWidening, type Widening } from './widen.js'
import { scopeOf } from './scope.js'
import { quote } from '../text.js'
import type { Enforcement, WideningLimits } from '../../platform/enforcement.js'

export interface EscalationContext<Out = unknown> {
  /** What the runtime says about the request: stdin, env, justification, its approval keys. */
  readonly request: RuntimeDescription
  readonly command: readonly string[]
  readonly cwd: string
  readonly decision: CommandDecision
  readonly policy: ExecPolicy
  readonly settings: ApprovalSettings
  readonly toolAllows: boolean
  /** The sandbox options of an attempt with this widening (base-facts.ts). */
  readonly optionsFor: (widening: Widening, limits: WideningLimits | undefined) => SandboxOptions
  readonly deciders: Deciders
  readonly cache: SessionCache
  readonly amendFile: string | undefined
  /** Why amendments cannot be written now, if they cannot. */
  readonly amendRefused?: string | undefined
  /** cordon's rules and amendments files: never under a proposed root, named in a scope that reaches them. */
  readonly rulesFiles: readonly string[]
  /** What the wider attempt would run that the sandbox could have written (planted-repos.ts), for the request and its key. */
  readonly risks: () => string[]
  readonly amendments: AmendResult[]
  readonly notes: string[]
  readonly hookErrors: string[]
  readonly signal: AbortSignal
  readonly output: AttemptSpec<Out>['output']
  readonly lease: (options: SandboxOptions) => Lease
  /** The runtime's attempt, bound to its request. */
  readonly execute: AttemptSpec<Out>['execute']
  readonly onAbort: () => void
}

export async function escalate<Out>(ctx: EscalationContext<Out>, first: Ran<Out>['record']): Promise<{ escalation: Escalation; attempt?: Ran<Out> }> {
  const enforcement = first.sandbox.enforcement ?? first.result?.enforcement
  if (!enforcement) return { escalation: { attempted: false, refused: ['no enforcement report for the first attempt'] } }
  const plan = planWidening(first.denials, enforcement, { rulesFiles: ctx.rulesFiles })
  const refused = plan.refused.map((r) => `${describeDenial(r.denial)}: ${r.reason}`)
  const gate = gateReason(ctx)
  if (gate) return { escalation: { attempted: false, refused: [...refused, gate] } }
  if (!plan.widening) return { escalation: { attempted: false, refused: refused.length ? refused : ['nothing denied can be widened'] } }
  // A first attempt that was already widened is widened further, never replaced.
  const widening = merge(first.sandbox.widening, plan.widening)
  const approval = await approveRetry(ctx, widening, { denials: first.denials, enforcement })
  if (approval.decision !== 'approved') return { escalation: { attempted: false, widening, approval: approval.record, refused } }
  const attempt = await runAttempt({
    index: 2,
    options: ctx.optionsFor(widening, enforcement.widening),
    widening,
    approval: approval.record,
    command: ctx.command,
    cwd: ctx.cwd,
    signal: ctx.signal,
    output: ctx.output,
    notes: ctx.notes,
    lease: ctx.lease,
    execute: ctx.execute,
  })
  return { escalation: { attempted: true, widening, approval: approval.record, refused }, attempt }
}

function gateReason<Out>(ctx: EscalationContext<Out>): string | undefined {
  if (!ctx.toolAllows) return 'the tool does not allow escalation'
  if (ctx.settings.mode === 'never') return 'approval mode never: no retry'
  if (!mayAsk(ctx.settings, 'escalation')) return 'escalation prompts are rejected'
  return undefined
}

async function approveRetry<Out>(ctx: EscalationContext<Out>, widening: Widening, plan: { denials: readonly Denial[]; enforcement: Enforcement }): Promise<{ decision: 'approved' | 'refused'; record: ApprovalRecord }> {
  const strict = ctx.deciders.strictReview
  const risks = ctx.risks()
  // A session approval given without these risks does not cover a retry that has them.
  const level = risks.length ? `${describeWidening(widening)} with risks ${JSON.stringify(risks)}` : describeWidening(widening)
  const keys = keysOf(ctx.request, { decision: ctx.decision, command: ctx.command, cwd: ctx.cwd, input: ctx.request.input, env: ctx.request.env, interactive: ctx.request.interactive }, { widening: level })
  const target = networkTarget(plan.denials, widening)
  if (!strict && ctx.cache.covers(keys)) return { decision: 'approved', record: { decision: 'approved', source: 'cache' } }
  // A network_rule never approves the retry: it names one host, and the
  // retry would reach every host (issue 13 §5; per-host widening needs the
  // allowlist proxy, issue 15). A rule that forbids the host still refuses.
  const byRule = target ? ctx.policy.decideNetwork(target.host, target.protocol).decision : undefined
  if (byRule === 'forbidden') return { decision: 'refused', record: { decision: 'denied', source: 'policy', reason: `a network_rule forbids ${quote(target?.host ?? '')}` } }
  const scope = scopeOf(widening, { enforcement: plan.enforcement, ...(target ? { network: target } : {}), rulesFiles: ctx.rulesFiles })
  const evidence = plan.denials.some((d) => d.evidence.by === 'cordon') ? 'cordon' : 'output-only'
  const request: ApprovalRequest = {
    // The runtime's fields first: what the orchestrator decided cannot be overridden by them.
    ...ctx.request.approval?.shown,
    kind: 'escalation',
    attempt: 2,
    command: ctx.command,
    cwd: ctx.cwd,
    promptClass: 'escalation',
    reason: withInteractive(`${evidence === 'cordon' ? 'the sandbox denied' : "the command's output reports that the sandbox denied (unverified: the command wrote it)"} ${plan.denials.map(describeDenial).join('; ')}; the retry would add: ${scope.join('; ')}`, ctx.request),
    ...(ctx.request.justification ? { justification: ctx.request.justification } : {}),
    widening,
    scope,
    evidence,
    denials: plan.denials,
    ...(target ? { network: target } : {}),
    ...shownInput(ctx.request),
    ...(risks.length ? { risks } : {}),
  }
  const answer = await askApprovers(request, ctx.deciders, ctx.signal)
  ctx.hookErrors.push(...answer.hookErrors)
  if (answer.decision === 'abort') {
    ctx.onAbort()
    throw new AbortError('an approver answered abort')
  }
  const effect = await applyAnswer(answer.decision, {
    cache: ctx.cache,
    keys,
    amendFile: ctx.amendFile,
    amendRefused: ctx.amendRefused,
    proposedAmendment: undefined,
    network: target,
    amendments: ctx.amendments,
  })
  if (effect.note) ctx.notes.push(effect.note)
  return { decision: effect.run ? 'approved' : 'refused', record: appliedRecord(answer.record, effect) }
}

/** The runtime's own keys (runtime.ts), else the run key. */
function keysOf(d: RuntimeDescription, facts: RunFacts, level: Level): string[] {
  return d.approval ? d.approval.keys(facts, level) : [runKey(facts, level)]
}

/** The host a network denial names (from the output, or the command's own URL), when the retry widens the network. */
function networkTarget(denials: readonly Denial[], widening: Widening): ApprovalRequest['network'] {
  if (!widening.network) return undefined
  const d = denials.find((x) => x.operation === 'network' && x.host !== undefined)
  if (d?.host === undefined) return undefined
  return { host: d.host, protocol: d.protocol ?? 'https', namedBy: d.hostFrom ?? 'output' }
}

function merge(a: Widening | undefined, b: Widening): Widening {
  if (!a) return b
  return {
    write: [...new Set([...a.write, ...b.write])],
    read: [...new Set([...a.read, ...b.read])],
    network: a.network || b.network,
    localSockets: a.localSockets || b.localSockets,
    full: a.full,
    unsandboxed: a.unsandboxed,
  }
}

/** One denial for a sentence: what, where (quoted: the output named it) and by which rule. */
export function describeDenial(d: Denial): string {
  if (d.operation === 'network') {
    const what = d.socket !== undefined ? `the local socket ${quote(d.socket)}` : d.host !== undefined ? `network to ${quote(`${d.host}${d.port ? `:${d.port}` : ''}`)}` : 'network'
    return `${what} (${d.rule === 'local-sockets-off' ? 'local sockets are off' : 'network is off'})`
  }
  if (d.operation === 'syscall') return 'a system call (seccomp)'
  return `${d.operation} of ${quote(d.path ?? '')} (${d.rule})`
}
