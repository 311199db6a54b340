/**
 * Approval modes: when the orchestrator asks before running a command.
 *
 * - `untrusted`: only commands the policy allows (a rule or the known-safe
 *   list) run without asking;
 * - `on-request` (default): unknown plain commands run in the sandbox without
 *   asking; rules that say `prompt`, dangerous commands, opaque scripts and
 *   requests to leave the sandbox ask;
 * - `on-failure`: everything the policy does not forbid or flag runs in the
 *   sandbox; asking happens when it fails on a sandbox denial;
 * - `never`: never asks. What would need approval is forbidden, or relies
 *   on the sandbox; a denial is never retried.
 *
 * Granular switches (`reject`) refuse one class of prompt without asking,
 * whatever the mode: e.g. `reject: ['escalation']` keeps prompts for rules
 * but never offers a wider second attempt.
 */
import { z } from 'zod'

export const approvalModeSchema = z.enum(['untrusted', 'on-request', 'on-failure', 'never'])
export type ApprovalMode = z.infer<typeof approvalModeSchema>

/**
 * Why a prompt would be shown:
 * - `rule`: a `prefix_rule` said `prompt`;
 * - `dangerous`: no rule matched and the command is on the destructive list;
 * - `unknown`: no rule matched and the command is not known safe;
 * - `opaque`: a shell script that could not be split into plain commands;
 * - `escalation`: running with more rights than the profile gives
 *   (`require_escalated`, or a wider retry after a sandbox denial);
 * - `patch`: a patch-style request touching paths;
 * - `network`: a host a network allowlist does not name (asked while the command runs).
 */
export const promptClassSchema = z.enum(['rule', 'dangerous', 'unknown', 'opaque', 'escalation', 'patch', 'network'])
export type PromptClass = z.infer<typeof promptClassSchema>

export interface ApprovalSettings {
  readonly mode: ApprovalMode
  /** Prompt classes refused without asking. */
  readonly reject: ReadonlySet<PromptClass>
}

/** Whether a prompt of this class may be shown at all under these settings. */
export function mayAsk(settings: ApprovalSettings, promptClass: PromptClass): boolean {
  return settings.mode !== 'never' && !settings.reject.has(promptClass)
}

/** Whether unknown commands and opaque scripts ask before their first run. */
export function asksUpfront(mode: ApprovalMode, promptClass: 'unknown' | 'opaque'): boolean {
  if (mode === 'untrusted') return true
  // on-request: a plain unknown command is confined by the sandbox; a script
  // we cannot read is shown to the user first.
  return mode === 'on-request' && promptClass === 'opaque'
}
