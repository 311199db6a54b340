/**
 * The outcome of one exec: data, not exceptions — an abort included.
 * It records every attempt (at most two) with its sandbox options, the
 * widening, who decided it could run, the real result and the denials
 * detected, so a caller or an audit log can see why something ran where.
 */
import type { CommandDecision } from '../exec-policy/index.js'
import type { ApprovalRecord } from './approval/approval.js'
import type { AmendResult } from './approval/amendments.js'
import type { AttemptRecord, AttemptResult } from './attempt.js'
import type { Denial } from './denial/denial.js'
import type { Requirement } from './approval/requirement.js'
import type { Widening } from './escalation/widen.js'

/**
 * What happened to the command, one word each:
 * - `completed`: the command ran to its end (see `result.exitCode`; it may have failed);
 * - `timed_out`: the command ran past the request's `timeout` and was stopped
 *   (`result.timedOut`; what it printed until then is in `result`);
 * - `forbidden`: the policy or the approval mode refuses it, nothing ran;
 * - `blocked`: a PreToolUse hook blocked it, nothing ran;
 * - `denied`: the approver said no to the first attempt, nothing ran;
 * - `approval_timed_out`: the approver did not answer within
 *   `approvalTimeoutMs` (or answered `timed_out`), nothing ran;
 * - `error`: the sandbox could not be set up (attempt.error says why);
 * - `canceled`: the exec was aborted (its signal, abortAll(), an approver's
 *   `abort`) before it was decided; `isCanceled` is true, and `attempts`
 *   holds what ran by then (a run stopped by the abort has `isCanceled`).
 * A refused *escalation* does not change the status: the first attempt ran.
 */
export type ExecStatus = 'completed' | 'timed_out' | 'forbidden' | 'blocked' | 'denied' | 'approval_timed_out' | 'error' | 'canceled'

export interface Escalation {
  /** True when a second, wider attempt ran. */
  readonly attempted: boolean
  readonly widening?: Widening
  /** The approval asked for the wider attempt (also when it was refused). */
  readonly approval?: ApprovalRecord
  /** Why (part of) the denial was not widened, or why no retry happened. */
  readonly refused: readonly string[]
}

export interface ExecOutcome {
  readonly status: ExecStatus
  /** The exec was aborted (status `canceled`): execa's flag, as on a sandbox result. */
  readonly isCanceled: boolean
  /** The command as decided and run (after any PreToolUse rewrite). */
  readonly command: readonly string[]
  readonly cwd: string
  readonly reason?: string
  /** The exec policy's decision for the command. */
  readonly policy?: CommandDecision
  readonly requirement?: Requirement
  /** Who decided whether attempt 1 could run (hook, policy, reviewer, user, cache), also when it could not. */
  readonly approval?: ApprovalRecord
  readonly attempts: readonly AttemptRecord[]
  /** What the caller is shown: the last attempt's result, possibly replaced by PostToolUse hooks. */
  readonly result?: AttemptResult
  /** True when a PostToolUse hook replaced part of `result` (attempts keep the real one). */
  readonly resultReplaced: boolean
  /** Sandbox denials of the last attempt. */
  readonly denials: readonly Denial[]
  readonly escalation?: Escalation
  /** Rules written to the amendments file during this exec. */
  readonly amendments: readonly AmendResult[]
  /** Context added by PostToolUse hooks. */
  readonly context: readonly string[]
  /** Hooks that failed or timed out (PreToolUse failures also block). */
  readonly hookErrors: readonly string[]
  /** Anything else worth knowing: an amendment that could not be written, an approver's invalid answer. */
  readonly notes: readonly string[]
}
