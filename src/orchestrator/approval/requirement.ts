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
import { sentence } from '../text.js'

export type SandboxPermissions = 'use_default' | 'require_escalated'

export type Requirement =
  | { readonly kind: 'skip'; readonly sandbox: 'profile' | 'escalated'; readonly reason: string }
  | {
      readonly kind: 'needs-approval'
      readonly promptClass: PromptClass
      readonly reason: string
      readonly proposedAmendment?: readonly string[]
      /** For a script: the command in it that needs the approval (kept out of `reason`). */
      readonly promptedBy?: readonly string[]
    }
  | { readonly kind: 'forbidden'; readonly reason: string }

export interface RequirementInput {
  readonly decision: CommandDecision
  readonly settings: ApprovalSettings
  readonly sandboxPermissions: SandboxPermissions
  readonly justification?: string | undefined
  /** Codex semantics: a command a rule allows runs without the (profile) sandbox. */
  readonly allowMeansNoSandbox: boolean
  /** The runtime's prompt class is `patch` (runtime.ts `approval.promptClass`): asks as a patch where no rule speaks. */
  readonly patch: boolean
  /** Write roots the runtime needs beyond the profile's (runtime.ts): always asked, as class `escalation`. */
  readonly additionalWrite?: readonly string[]
  /** The command gets a terminal the model types into later (RuntimeDescription.interactive). */
  readonly interactive?: boolean
}

export function requirementFor(input: RequirementInput): Requirement {
  const { decision, settings } = input
  if (decision.decision === 'forbidden') return { kind: 'forbidden', reason: forbiddenReason(decision) }
  const ruleAllows = decision.decision === 'allow' && decision.source === 'rule'
  // A rule allows a command, not what is typed into its terminal later (`!sh`
  // in a pager, any line in a REPL): an interactive run never leaves the
  // sandbox on a rule's word — asked when it requests that, else sandboxed.
  const noSandbox = ruleAllows && input.allowMeansNoSandbox && input.interactive !== true
  if (input.sandboxPermissions === 'require_escalated') {
    if (noSandbox) return { kind: 'skip', sandbox: 'escalated', reason: 'a rule allows it (allowMeansNoSandbox)' }
    // The justification is the model's text: the request carries it in its own field, never in this sentence.
    return ask(settings, 'escalation', 'asks to run outside the sandbox', undefined)
  }
  if (input.additionalWrite?.length) {
    return ask(settings, 'escalation', `asks to write outside the sandbox's write roots (${input.additionalWrite.length} path${input.additionalWrite.length === 1 ? '' : 's'}: see scope)`, undefined)
  }
  if (decision.decision === 'allow') {
    if (input.patch && settings.mode === 'untrusted') return ask(settings, 'patch', 'a patch-style request in untrusted mode', undefined)
    // A patch-style request names every path it writes and asks for any root beyond the profile's
    // (additionalWrite): it never needs "no sandbox", which would lift the protected paths too.
    const sandbox = noSandbox && !input.patch ? 'escalated' : 'profile'
    return { kind: 'skip', sandbox, reason: ruleAllows ? 'a rule allows it' : 'known safe' }
  }
  return promptRequirement(input)
}

function promptRequirement(input: RequirementInput): Requirement {
  const { decision, settings } = input
  const promptClass = classOf(decision, input.patch)
  const { reason, promptedBy } = promptReason(decision)
  if (promptClass === 'unknown' || promptClass === 'opaque' || promptClass === 'patch') {
    const upfront = promptClass === 'patch' ? settings.mode === 'untrusted' || settings.mode === 'on-request' : asksUpfront(settings.mode, promptClass)
    if (!upfront) return { kind: 'skip', sandbox: 'profile', reason: `${reason}; runs in the sandbox (approval mode ${settings.mode})` }
  }
  // The shortest prefix that is safe to allow for good, not the whole command line (amendment-prefix.ts).
  const r = ask(settings, promptClass, reason, amendmentPrefix(decision.proposedAmendment))
  return r.kind === 'needs-approval' && promptedBy ? { ...r, promptedBy } : r
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

/*
 * Reasons are cordon's sentences. A rule's justification is the rules
 * file's (trusted: a rules file the sandbox could write is refused); the
 * exec policy's own reasons may quote script text ("expansion in word …",
 * a program name), so they are escaped and bounded (text.ts); the command
 * that needs the approval is a field of its own, never spliced in.
 */
function forbiddenReason(decision: CommandDecision): string {
  const rule = decision.matchedRules.find((m) => m.decision === 'forbidden')
  if (rule) return `forbidden by rule at ${rule.where}${rule.justification ? `: ${sentence(rule.justification)}` : ''}`
  const seg = decision.segments.find((s) => s.decision === 'forbidden')
  return seg?.reason !== undefined ? sentence(seg.reason) : 'forbidden by policy'
}

function promptReason(decision: CommandDecision): { reason: string; promptedBy?: readonly string[] } {
  const rule = decision.matchedRules.find((m) => m.decision === 'prompt')
  if (rule) return { reason: `rule at ${rule.where} requires approval${rule.justification ? `: ${sentence(rule.justification)}` : ''}` }
  const seg = decision.segments.find((s) => s.decision === 'prompt')
  const reason = seg?.reason !== undefined ? sentence(seg.reason) : 'needs approval'
  // Several commands: say which one (its argv is a field; the sentence only counts).
  if (!seg || decision.segments.length < 2) return { reason }
  return { reason: `${reason} (command ${decision.segments.indexOf(seg) + 1} of ${decision.segments.length} in the script: see promptedBy)`, promptedBy: seg.argv }
}
