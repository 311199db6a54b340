/**
 * The seam between the orchestrator and a tool runtime (shell commands,
 * unified exec, apply_patch, …). The orchestrator owns everything about
 * *whether* and *with what rights* something runs — PreToolUse hooks, the
 * exec policy, the approval mode, the session cache, the approvers, the
 * sandbox of each attempt, denial detection and the one wider retry. A
 * runtime owns *what* runs: it describes a request (what the policy and
 * the approver see) and performs one attempt in the sandbox it is handed.
 *
 *   orchestrator.run(runtime, request)
 *     → runtime.describe(request)          command, keys, prompt class, extra roots
 *     → hooks → policy → requirement → approval (keys from the runtime)
 *     → runtime.attempt(request, sandbox)  attempt 1, in the sandbox chosen here
 *     → denials → at most one wider runtime.attempt(request, sandbox')
 *     → PostToolUse hooks → RunOutcome
 *
 * A runtime never creates a sandbox nor decides a widening: it runs inside
 * what it is given, so policy, approval and escalation apply to every
 * runtime the same way (issue 14).
 */
import type { Sandbox } from '../sandbox/sandbox.js'
import type { SandboxOptions } from '../sandbox/options.js'
import type { ApprovalRequest } from './approval/approval.js'
import type { Level, RunFacts } from './approval/command-key.js'
import type { SandboxPermissions } from './approval/requirement.js'
import type { AttemptResult, OutputSpec } from './attempt.js'
import type { Denial } from './denial/denial.js'
import type { Widening } from './escalation/widen.js'
import type { OutputKeep, OutputListener } from './output.js'
import type { ExecOutcome } from './outcome.js'

/**
 * How a runtime takes part in the approval: its own session-cache keys and
 * its own prompt class. Without it a request is keyed like a command (the
 * run key of command, cwd, stdin, env and level) and asks as `unknown`.
 */
export interface RuntimeApproval {
  /**
   * `patch`: where no rule speaks about the command, the request asks as a
   * patch (in `untrusted` and `on-request`; requirement.ts) instead of as an
   * unknown command.
   */
  readonly promptClass?: 'patch'
  /**
   * The session-cache keys of running this request at `level`: an approval
   * is cached per key, and a later request skips asking only when every
   * one of its keys is cached (e.g. one key per (environment, path) a patch
   * touches: pathKeys() in command-key.ts). Each key must name the whole
   * request (`facts`) and the level, so an approval never answers for
   * anything else.
   */
  keys(facts: RunFacts, level: Level): string[]
  /** Fields added to the approval request (e.g. `patch: { environment, paths }`). */
  readonly shown?: Partial<ApprovalRequest>
}

/** What the policy, the hooks and the approver see of one request. */
export interface RuntimeDescription {
  /**
   * The argv the exec policy decides and PreToolUse hooks and approvers are
   * shown: the command itself for a shell runtime, a stand-in naming the
   * operation for others (`['apply_patch', 'a.txt', 'b.txt']`).
   */
  readonly command: readonly string[]
  /** Where it runs, relative to the orchestrator's workspace (default: the workspace). */
  readonly cwd?: string
  /** One line for people (logs, telemetry): not used for any decision. */
  readonly summary: string
  /** stdin the attempt gives the command: part of the approval key and shown to the approver. */
  readonly input?: string
  /** Environment variables the attempt adds: part of the key and shown. */
  readonly env?: Readonly<Record<string, string>>
  /**
   * The command gets a terminal the caller types into later (unified exec's
   * `tty`): that input is not known now and no policy or approver reviews
   * it, so approving the command approves whatever is typed. Part of the key
   * and shown (`interactive: true`).
   */
  readonly interactive?: boolean
  /** `require_escalated`: asks to run outside the sandbox (as for a shell command). */
  readonly sandboxPermissions?: SandboxPermissions
  /** The model's reason for an escalation, shown in its own field. */
  readonly justification?: string
  /**
   * Write roots this request needs beyond the profile's (a patch touching
   * a file outside the workspace). Non-empty: attempt 1 runs with them
   * added, and that is always asked (prompt class `escalation`), never
   * covered by an approval of the plain request.
   */
  readonly additionalWrite?: readonly string[]
  /** Per request: whether a wider retry may follow a sandbox denial (default: the orchestrator's). */
  readonly escalateOnFailure?: boolean
  /** The command's own timeout (ms), for the `timed_out` status's reason. */
  readonly timeout?: number
  readonly approval?: RuntimeApproval
}

/** What the profile's sandbox gives, for a runtime deciding what it must ask for (e.g. `additionalWrite`). */
export interface WorkspaceFacts {
  /** The workspace (the sandbox's cwd), absolute. */
  readonly cwd: string
  /** The profile's write roots, as its enforcement report names them (real paths). */
  readonly writableRoots: readonly string[]
  /** Paths kept read-only inside the write roots. */
  readonly protectedPaths: readonly string[]
}

export interface DescribeContext {
  /** Read from the profile's enforcement report on first use (it may build a sandbox to ask): call it only when needed. */
  workspace(): WorkspaceFacts
}

/** The sandbox of one attempt, made by the orchestrator from the options it chose. */
export interface AttemptSandbox {
  readonly index: 1 | 2
  readonly sandbox: Sandbox
  /** The createSandbox() options of this attempt (the profile, plus any widening). */
  readonly options: SandboxOptions
  /** What was added to the profile for this attempt. */
  readonly widening?: Widening
  /**
   * Keep the sandbox open after attempt() settles (a process that outlives
   * the call, e.g. a unified-exec session). Returns the release, which the
   * runtime calls once when the last process is gone. Not retained, the
   * orchestrator closes the sandbox when attempt() settles.
   */
  retain(): () => void
}

export interface AttemptContext {
  /** Aborts with the run: stop and reap every process, then resolve (a result with `isCanceled`) or throw AbortError. */
  readonly signal: AbortSignal
  /** The caller's streaming listener and capture cap (process-manager bound) for this attempt. */
  readonly output: OutputSpec
  /** The directory the request runs in (resolved). */
  readonly cwd: string
  /** The command as decided (after a PreToolUse rewrite): the description's, or the rewritten one. */
  readonly command: readonly string[]
  /** The outcome's notes: a runtime may add a line (a listener that failed, a re-plan). */
  readonly notes: string[]
}

/** One attempt's product. A failure of the operation (non-zero exit, a denial) is a result, not a throw. */
export interface RuntimeAttempt<Out> {
  /** What the tool returns (the shell runtime: the result itself; a patch: what was applied). */
  readonly output: Out
  /**
   * The process result of the attempt — the evidence denial detection
   * reads, what PostToolUse hooks see, and `timedOut` / `isCanceled`.
   */
  readonly result: AttemptResult
  /**
   * Denials the runtime observed itself (structured, e.g. a patch helper's
   * per-path EACCES). When given they are used instead of reading the
   * result's output; when absent the output is read (denial.ts).
   */
  readonly denials?: readonly Denial[]
  /**
   * The attempt's process outlives the attempt (a unified-exec session
   * still running after its yield window): `result` is a snapshot, and
   * this is the result once the process has ended. PostToolUse hooks run
   * once, on this final result, not on the snapshot (`RunOutcome.after`).
   */
  readonly final?: Promise<AttemptResult>
}

/**
 * A tool runtime the orchestrator drives. `attempt` may be called twice
 * for one run (attempt 1, then at most one wider retry); throwing
 * SetupError / UnsupportedError means the sandbox could not be set up (the
 * attempt's `error`, never escalated); AbortError means it was aborted.
 */
export interface ToolRuntime<Req, Out> {
  readonly name: string
  describe(request: Req, context: DescribeContext): RuntimeDescription
  attempt(request: Req, sandbox: AttemptSandbox, context: AttemptContext): Promise<RuntimeAttempt<Out>>
  /**
   * The request with a command a PreToolUse hook rewrote. Absent: a rewrite
   * of this runtime's command blocks the request (fail closed) — a hook
   * cannot turn a patch into something else.
   */
  withCommand?(request: Req, command: readonly string[]): Req
}

/** Per-run controls that are not part of what is decided. */
export interface RunControl {
  readonly signal?: AbortSignal
  /** Streaming listener for each chunk of output. Not awaited. */
  readonly onOutput?: OutputListener
  /** Capture cap per stream (default 64 MiB). */
  readonly maxBuffer?: number
  readonly keep?: OutputKeep
  /** The tool call this run answers: PostToolUse hooks get it, also the deferred ones of a process that outlives the call. */
  readonly callId?: string
}

/** The PostToolUse hooks of a run whose process outlived it, once the process has ended. */
export interface DeferredPost {
  /** The final result as the caller is shown it (possibly replaced by a hook). */
  readonly result: AttemptResult
  readonly resultReplaced: boolean
  readonly context: readonly string[]
  readonly hookErrors: readonly string[]
}

/** exec()'s outcome, plus the runtime's output of the last attempt that ran. */
export interface RunOutcome<Out> extends ExecOutcome {
  readonly output?: Out
  /**
   * Present when the last attempt's process outlived the run
   * (`RuntimeAttempt.final`): PostToolUse hooks did not run on the
   * snapshot; they run on the final result, and this resolves with what
   * they made of it. Never rejects.
   */
  readonly after?: Promise<DeferredPost>
}
