/**
 * What an approver is asked, and what it may answer. Approvers are the
 * caller's `onApproval` (a user), a `reviewer` (strict automatic review),
 * and PermissionRequest hooks. Answers are validated: anything that is not a
 * known decision counts as `denied` (fail closed), never as approval.
 */
import { z } from 'zod'
import type { NetworkProtocol } from '../../exec-policy/index.js'
import type { PromptClass } from './approval-mode.js'
import type { Denial } from '../denial/denial.js'
import type { Widening } from '../escalation/widen.js'

const protocolSchema = z.enum(['http', 'https', 'socks5_tcp', 'socks5_udp'])

export const approvalDecisionSchema = z.union([
  z.enum(['approved', 'approved_for_session', 'denied', 'timed_out', 'abort']),
  z
    .object({
      type: z.literal('approved_with_amendment'),
      /** The prefix rule to add; default: the request's `proposedAmendment`. */
      pattern: z.array(z.string().min(1)).min(1).optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal('network_amendment'),
      host: z.string().min(1),
      protocol: protocolSchema.optional(),
      action: z.enum(['allow', 'deny']),
    })
    .strict(),
])
export type ApprovalDecision = z.infer<typeof approvalDecisionSchema>

/** The decision's name, for records: `approved`, `approved_with_amendment`, … */
export type ApprovalDecisionName = 'approved' | 'approved_for_session' | 'approved_with_amendment' | 'network_amendment' | 'denied' | 'timed_out' | 'abort'

export function decisionName(d: ApprovalDecision): ApprovalDecisionName {
  return typeof d === 'string' ? d : d.type
}

/** True when the decision lets this attempt run. A network amendment runs only with `action: 'allow'`. */
export function isApproval(d: ApprovalDecision): boolean {
  if (typeof d === 'string') return d === 'approved' || d === 'approved_for_session'
  return d.type === 'approved_with_amendment' || d.action === 'allow'
}

export interface ApprovalRequest {
  /**
   * `exec`: before the first attempt; `escalation`: before a wider second
   * attempt; `network`: a running command's proxy asks for a host no entry
   * of the network allowlist names (`network` says which; docs/network.md).
   */
  readonly kind: 'exec' | 'escalation' | 'network'
  readonly attempt: 1 | 2
  readonly command: readonly string[]
  readonly cwd: string
  readonly promptClass: PromptClass
  readonly reason: string
  readonly justification?: string
  /**
   * A `prefix_rule` pattern the approver may add instead of answering every
   * time: the shortest prefix of the command that leaves no subcommand open
   * and that no appended argument makes destructive (`['cargo', 'build']`
   * for `cargo build --release`). `approved_with_amendment` without a
   * `pattern` stores this one.
   */
  readonly proposedAmendment?: readonly string[]
  /** The rule that answer appends, as it will read in the rules file. */
  readonly proposedRule?: string
  /** Escalation: what the second attempt would add to the sandbox. */
  readonly widening?: Widening
  /**
   * What running with the widening really allows, one line per right, e.g.
   * `write: / — everything this user can write: …` or `network: all hosts
   * …; the host's unix sockets stay blocked`. Set whenever the attempt runs
   * with more than the profile (a retry, or `require_escalated`).
   */
  readonly scope?: readonly string[]
  /**
   * Escalation: who saw the denials the widening answers. `output-only`:
   * only the command's own output says the sandbox denied something, and the
   * command can print anything (paths and hosts in it included).
   */
  readonly evidence?: 'cordon' | 'output-only'
  /** Escalation: what the first attempt was denied, with evidence. */
  readonly denials?: readonly Denial[]
  /**
   * Escalation for a network denial: the host the command tried to reach,
   * and who named it (`output`: the command's output, which it controls).
   * The retry reaches every host, not only this one.
   */
  readonly network?: { readonly host: string; readonly protocol: NetworkProtocol; readonly namedBy: 'output' | 'command' }
  /**
   * What the wider attempt would run that a sandboxed command could have
   * written: git repositories whose config and hooks lie in a write root
   * (git runs them, with the attempt's rights).
   */
  readonly risks?: readonly string[]
  /** For a script: the one of its commands that needs the approval (its text is kept out of `reason`). */
  readonly promptedBy?: readonly string[]
  /**
   * Patch-style request: the (environment, path) pairs it touches and, for
   * apply_patch, what it does to each file, verified against the files
   * before this request was made (src/tools/apply-patch/verify.ts).
   */
  readonly patch?: { readonly environment: string; readonly paths: readonly string[]; readonly files?: readonly PatchFileShown[] }
  /** What the command reads on stdin (the request's `input`): the approver approves that too. */
  readonly stdin?: StdinShown
  /** Environment variables the request sets for the command, on top of the sandbox's. */
  readonly env?: Readonly<Record<string, string>>
  /**
   * The command runs on a terminal the model types into afterwards: that
   * input is reviewed by no one (no exec policy, no approver) and runs with
   * the approved rights — approving a pager or a shell approves any command
   * typed into it. `reason` says so too.
   */
  readonly interactive?: true
}

/** One file of a patch as the approver is shown it: the operation, and a unified diff of exactly what will be written. */
export interface PatchFileShown {
  readonly kind: 'add' | 'delete' | 'update'
  /** Absolute. */
  readonly path: string
  readonly moveTo?: string
  readonly diff: string
}

/** A request's stdin as shown: the text (up to STDIN_SHOWN bytes), its size and digest (what the session key holds). */
export interface StdinShown {
  readonly text: string
  readonly bytes: number
  readonly sha256: string
  /** True when `text` is only the start of it. */
  readonly truncated: boolean
}

/** `signal` aborts when the exec is aborted; answer `'abort'` to stop everything. */
export type Approver = (request: ApprovalRequest, context: { signal: AbortSignal }) => ApprovalDecision | Promise<ApprovalDecision>

/** Who decided an attempt may run (or may not). */
export type DecisionSource = 'hook' | 'policy' | 'reviewer' | 'user' | 'cache'

export interface ApprovalRecord {
  readonly decision: ApprovalDecisionName
  readonly source: DecisionSource
  readonly reason?: string
}

/** Validate an approver's answer; an invalid one is a denial naming what was wrong. */
export function parseApprovalDecision(raw: unknown): { decision: ApprovalDecision; invalid?: string } {
  const r = approvalDecisionSchema.safeParse(raw)
  if (r.success) return { decision: r.data }
  return { decision: 'denied', invalid: `invalid approval decision ${safeJson(raw)}: ${r.error.issues[0]?.message ?? 'unknown'}` }
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v)?.slice(0, 200) ?? String(v)
  } catch {
    return String(v)
  }
}
