/**
 * Collects an exec's outcome as it proceeds, so every exit (blocked,
 * forbidden, denied, error, completed, canceled) reports the same shape
 * with what was known at that point.
 */
import type { CommandDecision } from '../exec-policy/index.js'
import type { AmendResult } from './approval/amendments.js'
import type { ApprovalRecord } from './approval/approval.js'
import type { AttemptRecord, AttemptResult, Ran } from './attempt.js'
import type { ExecOutcome, ExecStatus } from './outcome.js'
import type { Requirement } from './approval/requirement.js'

export class Recorder {
  policy: CommandDecision | undefined
  requirement: Requirement | undefined
  approval: ApprovalRecord | undefined
  readonly attempts: AttemptRecord[] = []
  result: ExecOutcome['result']
  resultReplaced = false
  escalation: ExecOutcome['escalation']
  readonly amendments: AmendResult[] = []
  readonly context: string[] = []
  readonly hookErrors: string[] = []
  readonly notes: string[] = []
  /** The runtime's output of the last attempt that produced one. */
  output: unknown
  private hasOutput = false
  /** The final result of the last attempt's process when it outlived the attempt (runtime.ts `RuntimeAttempt.final`). */
  final: Promise<AttemptResult> | undefined

  constructor(
    public command: readonly string[],
    readonly cwd: string,
  ) {}

  /** Record an attempt, and the runtime's output when it ran. */
  ran(r: Ran): void {
    this.attempts.push(r.record)
    this.final = r.final
    if ('output' in r && r.record.result) {
      this.output = r.output
      this.hasOutput = true
    }
  }

  finish(status: ExecStatus, reason?: string): ExecOutcome & { output?: unknown } {
    return this.snapshot(status, reason)
  }

  snapshot(status: ExecStatus, reason?: string): ExecOutcome & { output?: unknown } {
    const last = this.attempts[this.attempts.length - 1]
    return {
      status,
      isCanceled: status === 'canceled',
      command: this.command,
      cwd: this.cwd,
      ...(reason !== undefined ? { reason } : {}),
      ...(this.policy ? { policy: this.policy } : {}),
      ...(this.requirement ? { requirement: this.requirement } : {}),
      ...(this.approval ? { approval: this.approval } : {}),
      attempts: [...this.attempts],
      ...(this.result ?? last?.result ? { result: this.result ?? last?.result } : {}),
      resultReplaced: this.resultReplaced,
      denials: last?.denials ?? [],
      ...(this.escalation ? { escalation: this.escalation } : {}),
      amendments: [...this.amendments],
      context: [...this.context],
      hookErrors: [...this.hookErrors],
      notes: [...this.notes],
      ...(this.hasOutput ? { output: this.output } : {}),
    }
  }
}
