/**
 * The requirement for one command: run it without asking (`skip`), ask
 * (`needs-approval`, with the reason and an "always allow" amendment when
 * one may be offered), or refuse (`forbidden`: asking cannot change it).
 *
 * The policy says what a command *is* (allowed, needs a prompt, forbidden);
 * the approval mode says what to do about a prompt. `allow` means "no
 * prompt": the command still runs in the profile's sandbox unless the caller
 * opted into Codex's semantics (`allowMeansNoSandbox`), where a command a
 * rule allows runs without the sandbox — and even then never without the
 * sandbox that enforces a denied read (see widen.ts).
 */
import type { CommandDecision } from '../../exec-policy/index.js'
import { amendmentPrefix } from './amendment-prefix.js'
import { asksUpfront, mayAsk, type ApprovalSettings, type PromptClass } from './approval-mode.js'

export type SandboxPermissions = 'use_default' | 'require_escalated'

export type Requirement =
  | { readonly kind: 'skip'; readonly sandbox: 'profile' | 'escalated'; readonly reason: string }
  | {
      readonly kind: 'needs-approval'
      readonly promptClass: PromptClass
      readonly reason: string
      readonly proposedAmendment?: readonly string[]
    }
  | { readonly kind: 'forbidden'; readonly reason: string }

export interface RequirementInput {
  readonly decision: CommandDecision
  readonly settings: ApprovalSettings
  readonly sandboxPermissions: SandboxPermissions
  readonly justification?: string | undefined
  /** Codex semantics: a command a rule allows runs without the (profile) sandbox. */
  readonly allowMeansNoSandbox: boolean
  /** A patch-style request (keys on the paths it touches). */
  readonly patch: boolean
}

export function requirementFor(input: RequirementInput): Requirement {
  const { decision, settings } = input
  if (decision.decision === 'forbidden') return { kind: 'forbidden', reason: forbiddenReason(decision) }
  const ruleAllows = decision.decision === 'allow' && decision.source === 'rule'
  if (input.sandboxPermissions === 'require_escalated') {
    if (ruleAllows && input.allowMeansNoSandbox) return { kind: 'skip', sandbox: 'escalated', reason: 'a rule allows it (allowMeansNoSandbox)' }
    const why = input.justification ? `asks to run outside the sandbox: ${input.justification}` : 'asks to run outside the sandbox'
    return ask(settings, 'escalation', why, undefined)
  }
  if (decision.decision === 'allow') {
    if (input.patch && settings.mode === 'untrusted') return ask(settings, 'patch', 'a patch-style request in untrusted mode', undefined)
    const sandbox = ruleAllows && input.allowMeansNoSandbox ? 'escalated' : 'profile'
    return { kind: 'skip', sandbox, reason: ruleAllows ? 'a rule allows it' : 'known safe' }
  }
  return promptRequirement(input)
}

function promptRequirement(input: RequirementInput): Requirement {
  const { decision, settings } = input
  const promptClass = classOf(decision, input.patch)
  const reason = promptReason(decision)
  if (promptClass === 'unknown' || promptClass === 'opaque' || promptClass === 'patch') {
    const upfront = promptClass === 'patch' ? settings.mode === 'untrusted' || settings.mode === 'on-request' : asksUpfront(settings.mode, promptClass)
    if (!upfront) return { kind: 'skip', sandbox: 'profile', reason: `${reason}; runs in the sandbox (approval mode ${settings.mode})` }
  }
  // The shortest prefix that is safe to allow for good, not the whole command line (amendment-prefix.ts).
  return ask(settings, promptClass, reason, amendmentPrefix(decision.proposedAmendment))
}

function ask(settings: ApprovalSettings, promptClass: PromptClass, reason: string, amendment: readonly string[] | undefined): Requirement {
  if (!mayAsk(settings, promptClass)) {
    const why = settings.mode === 'never' ? 'approval mode is never' : `${promptClass} prompts are rejected`
    return { kind: 'forbidden', reason: `${reason} (${why})` }
  }
  return amendment ? { kind: 'needs-approval', promptClass, reason, proposedAmendment: amendment } : { kind: 'needs-approval', promptClass, reason }
}

function classOf(decision: CommandDecision, patch: boolean): PromptClass {
  if (decision.source === 'rule') return 'rule'
  if (decision.source === 'heuristic-dangerous') return 'dangerous'
  if (decision.opaque) return 'opaque'
  return patch ? 'patch' : 'unknown'
}

function forbiddenReason(decision: CommandDecision): string {
  const rule = decision.matchedRules.find((m) => m.decision === 'forbidden')
  if (rule) return `forbidden by rule at ${rule.where}${rule.justification ? `: ${rule.justification}` : ''}`
  const seg = decision.segments.find((s) => s.decision === 'forbidden')
  return seg?.reason ?? 'forbidden by policy'
}

function promptReason(decision: CommandDecision): string {
  const rule = decision.matchedRules.find((m) => m.decision === 'prompt')
  if (rule) return `rule at ${rule.where} requires approval${rule.justification ? `: ${rule.justification}` : ''}`
  const seg = decision.segments.find((s) => s.decision === 'prompt')
  const argv = seg ? ` (${seg.argv.join(' ')})` : ''
  return `${seg?.reason ?? 'needs approval'}${argv}`
}
