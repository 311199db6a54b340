/**
 * createOrchestrator(): should a command run, who decides, with what
 * rights. One exec goes:
 *   PreToolUse hooks → exec policy → requirement (approval mode)
 *   → session cache → PermissionRequest hooks → reviewer | user
 *   → attempt 1 in the profile's sandbox
 *   → on a sandbox denial, at most one wider attempt (escalation.ts)
 *   → PostToolUse hooks.
 * No global state: each orchestrator has its own session cache.
 */
import { setMaxListeners } from 'node:events'
import { resolve } from 'node:path'
import { AbortError, PolicyError } from '../errors.js'
import type { CommandDecision, ExecPolicy } from '../exec-policy/index.js'
import { createSandbox as defaultCreateSandbox, openSandbox, type Sandbox } from '../sandbox/sandbox.js'
import type { SandboxOptions } from '../sandbox/options.js'
import type { Approver } from './approval/approval.js'
import type { ApprovalSettings } from './approval/approval-mode.js'
import { runAttempt } from './attempt.js'
import type { Deciders } from './approval/decision-flow.js'
import { approveFirst } from './approval/first-approval.js'
import { Recorder } from './outcome-recorder.js'
import { escalate, type EscalationContext } from './escalation/escalation.js'
import type { Hooks, PostToolUseInput } from './hooks/hooks.js'
import { parseWith } from '../profile/parse-with.js'
import { execRequestSchema, expandHome, orchestratorOptionsSchema, type ExecRequest, type OrchestratorOptionsParsed } from './options.js'
import type { ExecOutcome } from './outcome.js'
import { PolicyStore } from './policy-store.js'
import { NetworkApprovals } from './approval/network-approval.js'
import { requirementFor, type Requirement } from './approval/requirement.js'
import { SessionCache } from './approval/session-cache.js'
import { runPostToolUse, runPreToolUse } from './hooks/tool-hooks.js'
import { describeWidening, noSandboxWidening, type Widening } from './escalation/widen.js'
import { plantedRepos, riskLines, runDirs } from './escalation/planted-repos.js'
import { BaseFacts } from './base-facts.js'
import { ownLease, SandboxPool, type Lease } from './sandbox-pool.js'
import { linkSignals } from './linked-signal.js'
import { scopeOf } from './escalation/scope.js'
import type { AttemptRecord, AttemptResult, AttemptSpec, OutputSpec } from './attempt.js'
import type { DeferredPost, RunControl, RunOutcome, RuntimeDescription, ToolRuntime, WorkspaceFacts } from './runtime.js'
import { shellRuntime } from '../tools/shell/shell-runtime.js'
import { execPatch } from '../tools/apply-patch/exec-route.js'
import { DEFAULT_MAX_BUFFER } from './output.js'
import type { Enforcement } from '../platform/enforcement.js'

export interface OrchestratorOptions {
  /** createSandbox() options for the first attempt. Default: `{}` (workspace-write in process.cwd()). */
  sandbox?: SandboxOptions
  /** Rules files (Codex `.rules`), merged in order; `~/` expands. A file that does not parse is an error. */
  rules?: string[]
  /** Where amendments go. Default: the last `rules` file. */
  amendRules?: string
  approvalMode?: ApprovalSettings['mode']
  /** Granular switches: prompt classes refused without asking. */
  reject?: ApprovalSettings['reject'] extends ReadonlySet<infer C> ? C[] : never
  onApproval?: Approver
  reviewer?: Approver
  /** Strict automatic review: `reviewer` answers instead of `onApproval`, and re-approves every wider attempt. Default: true when a reviewer is given. */
  strictReview?: boolean
  hooks?: Hooks
  hookTimeoutMs?: number
  approvalTimeoutMs?: number
  escalateOnFailure?: boolean
  allowMeansNoSandbox?: boolean
  allowUnsandboxed?: boolean
  createSandbox?: (options: SandboxOptions) => Sandbox
}

export interface Assessment {
  readonly command: readonly string[]
  readonly policy: CommandDecision
  readonly requirement: Requirement
}

export interface Orchestrator {
  /**
   * Decide, approve, run (at most twice) and report. An abort resolves with
   * status `canceled` (`isCanceled: true`); rejects only with PolicyError
   * (bad input, bad rules file).
   */
  exec(request: ExecRequest): Promise<ExecOutcome>
  /**
   * Drive any tool runtime (runtime.ts) through the same chain: hooks,
   * policy, approval with the runtime's keys and prompt class, attempts in
   * the sandboxes chosen here, at most one wider retry. exec() is
   * `run(shellRuntime, request)`. Resolves `canceled` on an abort; rejects
   * only with PolicyError (bad input, bad rules file).
   */
  run<Req, Out>(runtime: ToolRuntime<Req, Out>, request: Req, control?: RunControl): Promise<RunOutcome<Out>>
  /** The policy decision and requirement for a command, without hooks, prompts or running anything. */
  assess(request: ExecRequest): Promise<Assessment>
  /**
   * Do now what the first exec would otherwise start with: compile the shell
   * grammar (on a worker thread: the event loop keeps running), load the
   * rules files and read the profile's write roots. Agent runtimes call it
   * at start-up; an exec or assess made meanwhile awaits the same load.
   * Rejects with a LoadError (the grammar) or a PolicyError (a rules file).
   */
  warmUp(): Promise<void>
  /** Abort every exec in flight (what an approver's `abort` does): each resolves `canceled`. Later execs run normally. */
  abortAll(reason?: string): void
  /**
   * What the profile's sandbox lets a command touch, from its own
   * enforcement report (read once): a runtime describes its request with
   * it (apply_patch: which files it may read, which paths need a write
   * root beyond the profile's, which roots may never be proposed).
   */
  workspace(): OrchestratorWorkspace
  readonly sessionCache: SessionCache
}

export interface OrchestratorWorkspace {
  /** The sandbox cwd: where requests run by default. */
  readonly cwd: string
  readonly writeRoots: readonly string[]
  /** The profile sandbox's enforcement report (absent when it could not be made). */
  readonly report?: Enforcement
  /** cordon's rules and amendments files (canonical): never under a widened write root. */
  readonly rulesFiles: readonly string[]
}

/** The level a widened request is keyed at: the widening, and the planted repositories it was asked with. */
function levelText(w: Widening, risks: readonly string[]): string {
  return risks.length ? `${describeWidening(w)} with risks ${JSON.stringify(risks)}` : describeWidening(w)
}

export function createOrchestrator(options: OrchestratorOptions = {}): Orchestrator {
  return new OrchestratorImpl(options)
}

class OrchestratorImpl implements Orchestrator {
  readonly sessionCache = new SessionCache()
  private readonly o: OrchestratorOptionsParsed
  private readonly base: SandboxOptions
  private readonly baseCwd: string
  private readonly settings: ApprovalSettings
  private readonly store: PolicyStore
  private readonly amendFile: string | undefined
  /** The rules files and the amendments file: what a widening must never be proposed over. */
  private readonly rulesFiles: readonly string[]
  private readonly deciders: Deciders
  private readonly make: (options: SandboxOptions) => Sandbox
  /** Attempts' sandboxes kept for the same options (sandbox-pool.ts); absent with the caller's own createSandbox, called per attempt. */
  private readonly pool: SandboxPool | undefined
  private stop = stopController()
  private readonly facts: BaseFacts
  private readonly network: NetworkApprovals

  constructor(raw: OrchestratorOptions) {
    this.o = parseWith(orchestratorOptionsSchema, raw ?? {}, 'createOrchestrator options')
    const strict = this.o.strictReview ?? this.o.reviewer !== undefined
    if (strict && !this.o.reviewer) throw new PolicyError('strictReview needs a reviewer callback', { where: 'createOrchestrator options: reviewer' })
    this.base = this.o.sandbox as SandboxOptions
    this.baseCwd = resolve(this.base.cwd ?? process.cwd())
    this.settings = { mode: this.o.approvalMode, reject: new Set(this.o.reject) }
    const rules = this.o.rules.map(expandHome)
    this.amendFile = this.o.amendRules ? expandHome(this.o.amendRules) : rules[rules.length - 1]
    this.store = new PolicyStore(rules, this.amendFile)
    this.rulesFiles = [...new Set([...rules, ...(this.amendFile ? [this.amendFile] : [])])]
    const own = this.o.createSandbox as OrchestratorOptions['createSandbox']
    this.make = own ?? defaultCreateSandbox
    this.pool = own ? undefined : new SandboxPool(openSandbox)
    this.facts = new BaseFacts(this.base, this.baseCwd, this.rulesFiles, this.amendFile, this.make)
    this.deciders = {
      permissionHooks: (this.o.hooks.permissionRequest ?? []) as NonNullable<Hooks['permissionRequest']>,
      hookTimeoutMs: this.o.hookTimeoutMs,
      onApproval: this.o.onApproval as Approver | undefined,
      reviewer: this.o.reviewer as Approver | undefined,
      strictReview: strict,
      approvalTimeoutMs: this.o.approvalTimeoutMs,
    }
    this.network = new NetworkApprovals(this.deciders, this.settings, this.amendFile)
  }

  async warmUp(): Promise<void> {
    this.facts.checkRulesFiles()
    await this.store.current()
  }

  workspace(): OrchestratorWorkspace {
    const f = this.facts.get()
    return { cwd: this.baseCwd, writeRoots: f.writeRoots, ...(f.report ? { report: f.report } : {}), rulesFiles: this.facts.canonicalRulesFiles() }
  }

  abortAll(reason = 'aborted'): void {
    this.stop.abort(new AbortError(reason))
    this.stop = stopController()
  }

  async assess(raw: ExecRequest): Promise<Assessment> {
    const req = parseWith(execRequestSchema, raw ?? {}, 'exec request')
    const cwd = resolve(this.baseCwd, req.cwd ?? '.')
    this.facts.checkRulesFiles()
    const policy = await this.store.current()
    const desc = shellRuntime.describe(req, { workspace: () => this.workspaceFacts() })
    const decision = this.decide(policy, req.command, cwd, desc.env)
    return { command: req.command, policy: decision, requirement: this.requirement(decision, desc) }
  }

  /**
   * An abort — the request's signal, abortAll(), an approver's `abort` — is
   * not an exception (execa's contract, as sandbox.run has it): the exec
   * resolves with status `canceled` and `isCanceled: true`, carrying what
   * was known and what ran by then. Inside, the steps stop by throwing
   * AbortError; it ends here.
   */
  async exec(raw: ExecRequest): Promise<ExecOutcome> {
    const parsed = parseWith(execRequestSchema, raw ?? {}, 'exec request')
    // Linked now: an abortAll() while the patch route looks at the command still cancels this exec.
    const link = linkSignals(this.stop.signal, parsed.signal)
    const req = { ...parsed, signal: link.signal }
    try {
      // `apply_patch PATCH`, or a shell script that only runs it: a patch, never a shell (src/tools/apply-patch/invocation.ts).
      const patched = await execPatch(this, req)
      if (patched) return patched
      return await this.run(shellRuntime, req, { signal: req.signal, ...(req.onOutput ? { onOutput: req.onOutput } : {}), ...(req.maxBuffer ? { maxBuffer: req.maxBuffer } : {}), keep: req.keep })
    } finally {
      link.detach()
    }
  }

  async run<Req, Out>(runtime: ToolRuntime<Req, Out>, request: Req, control: RunControl = {}): Promise<RunOutcome<Out>> {
    const described = runtime.describe(request, { workspace: () => this.workspaceFacts() })
    const rec = new Recorder(described.command, resolve(this.baseCwd, described.cwd ?? '.'))
    const link = linkSignals(this.stop.signal, control.signal)
    let after: Promise<DeferredPost> | undefined
    try {
      const out = await this.decideAndRun(runtime, request, described, control, rec, link.signal)
      after = out.after
      return out as RunOutcome<Out>
    } catch (e) {
      if (e instanceof AbortError) return rec.finish('canceled', e.message) as RunOutcome<Out>
      throw e
    } finally {
      // A process that outlived the run may still ask the approvers with this signal until it has ended.
      if (after) void after.then(link.detach, link.detach)
      else link.detach()
    }
  }

  private async decideAndRun<Req, Out>(runtime: ToolRuntime<Req, Out>, original: Req, desc: RuntimeDescription, control: RunControl, rec: Recorder, signal: AbortSignal): Promise<ExecOutcome & { after?: Promise<DeferredPost> }> {
    if (signal.aborted) throw new AbortError('aborted before the command was decided')
    const cwd = rec.cwd
    const hooks = this.o.hooks as Hooks
    const sandboxPermissions = desc.sandboxPermissions ?? 'use_default'
    const pre = await runPreToolUse(
      hooks.preToolUse,
      { event: 'PreToolUse', command: desc.command, cwd, sandboxPermissions, ...(desc.justification ? { justification: desc.justification } : {}) },
      this.o.hookTimeoutMs,
      signal,
      rec.hookErrors,
    )
    rec.command = pre.command
    if (signal.aborted) throw new AbortError('aborted while PreToolUse hooks ran')
    if (pre.kind === 'blocked') {
      rec.approval = { decision: 'denied', source: 'hook', reason: pre.reason }
      return rec.finish('blocked', pre.reason)
    }
    const request = rewritten(runtime, original, desc.command, pre.command)
    if (request === undefined) {
      const reason = `a PreToolUse hook rewrote the command of a ${runtime.name} request, which takes no rewritten command`
      rec.approval = { decision: 'denied', source: 'hook', reason }
      return rec.finish('blocked', reason)
    }
    this.facts.checkRulesFiles()
    const policy = await this.store.current()
    const decision = this.decide(policy, pre.command, cwd, desc.env)
    const requirement = this.requirement(decision, desc)
    rec.policy = decision
    rec.requirement = requirement
    if (requirement.kind === 'forbidden') {
      rec.approval = { decision: 'denied', source: 'policy', reason: requirement.reason }
      return rec.finish('forbidden', requirement.reason)
    }
    const { widening, risks } = this.firstWidening(requirement, desc, decision, cwd, rec)
    const approval = await approveFirst(
      {
        request: desc,
        allowedBy: pre.kind === 'continue' ? pre.allowedBy : undefined,
        decision,
        requirement,
        cwd,
        level: widening ? { widening: levelText(widening, risks) } : 'sandbox',
        ...(widening ? { shown: { widening, scope: scopeOf(widening, { rulesFiles: this.facts.canonicalRulesFiles() }), ...(risks.length ? { risks } : {}) } } : {}),
        signal,
        deciders: this.deciders,
        cache: this.sessionCache,
        amendFile: this.amendFile,
        onAbort: () => this.abortAll('an approver answered abort'),
      },
      rec,
    )
    rec.approval = approval
    if (approval.decision === 'denied') return rec.finish('denied', approval.reason ?? 'approval: denied')
    if (approval.decision === 'timed_out') return rec.finish('approval_timed_out', approval.reason ?? 'the approver did not answer in time')
    const output: OutputSpec = { listener: control.onOutput, maxBuffer: control.maxBuffer ?? DEFAULT_MAX_BUFFER, keep: control.keep ?? 'head-tail' }
    const execute: AttemptSpec<Out>['execute'] = (sandbox, context) => runtime.attempt(request, sandbox, context)
    // A network allowlist's proxy asks this session's approvers; the rules files' network_rules join its lists.
    const netCtx = { command: pre.command, cwd, rules: policy.policy.networkRules, signal }
    const lease = (o: SandboxOptions) => this.lease(this.network.sandboxOptions(o, netCtx))
    const first = await runAttempt({
      index: 1,
      options: this.facts.optionsFor(widening, widening && this.facts.get().widening),
      widening,
      approval,
      command: pre.command,
      cwd,
      signal,
      output,
      notes: rec.notes,
      lease,
      execute,
    })
    rec.ran(first)
    if (first.record.error) return rec.finish('error', first.record.error.message)
    if (first.record.result?.isCanceled) throw new AbortError('aborted while the command ran')
    if (first.record.denials.length > 0) {
      const ctx: EscalationContext<Out> = {
        request: desc,
        command: pre.command,
        cwd,
        decision,
        policy,
        settings: this.settings,
        toolAllows: desc.escalateOnFailure ?? this.o.escalateOnFailure,
        optionsFor: (w, limits) => this.facts.optionsFor(w, limits),
        deciders: this.deciders,
        cache: this.sessionCache,
        amendFile: this.amendFile,
        rulesFiles: this.facts.canonicalRulesFiles(),
        risks: () => this.risks(cwd, decision, desc.env),
        amendments: rec.amendments,
        notes: rec.notes,
        hookErrors: rec.hookErrors,
        signal,
        output,
        lease,
        execute,
        onAbort: () => this.abortAll('an approver answered abort'),
      }
      const esc = await escalate(ctx, first.record)
      rec.escalation = esc.escalation
      if (esc.attempt) rec.ran(esc.attempt)
      if (esc.attempt?.record.result?.isCanceled) throw new AbortError('aborted while the wider attempt ran')
      if (esc.attempt?.record.error) return rec.finish('error', esc.attempt.record.error.message)
    }
    const last = rec.attempts[rec.attempts.length - 1] as AttemptRecord
    const callId = control.callId !== undefined ? { callId: control.callId } : {}
    // A process that outlived its attempt (a unified-exec session): the
    // hooks see its final result, once, with the call that started it.
    const final = rec.final
    if (last.result && final) return { ...rec.finish('completed'), after: this.postLater(final, { event: 'PostToolUse', command: pre.command, cwd, ...callId }) }
    if (last.result) {
      const post = await runPostToolUse(hooks.postToolUse, { event: 'PostToolUse', command: pre.command, cwd, result: last.result, ...callId }, this.o.hookTimeoutMs, signal, rec.hookErrors)
      rec.result = post.result
      rec.resultReplaced = post.replaced
      rec.context.push(...post.context)
    }
    if (signal.aborted) throw new AbortError('aborted while PostToolUse hooks ran')
    // The command's own timeout is the command's outcome, not the approver's (`approval_timed_out`).
    if (last.result?.timedOut) return rec.finish('timed_out', `the command ran past its timeout (${desc.timeout ?? '?'} ms) and was stopped`)
    return rec.finish('completed')
  }

  /** A sandbox for one attempt: a kept one for the same options, or, with the caller's createSandbox, a new one closed on release. */
  private lease(options: SandboxOptions): Lease {
    return this.pool ? this.pool.acquire(options) : ownLease(this.make(options))
  }

  /** PostToolUse on the final result of a process that outlived its run; never rejects (a failure is a hook error). */
  private async postLater(final: Promise<AttemptResult>, input: Omit<PostToolUseInput, 'result'>): Promise<DeferredPost> {
    const hookErrors: string[] = []
    const result = await final
    try {
      const post = await runPostToolUse((this.o.hooks as Hooks).postToolUse, { ...input, result }, this.o.hookTimeoutMs, this.stop.signal, hookErrors)
      return { result: post.result, resultReplaced: post.replaced, context: post.context, hookErrors }
    } catch (e) {
      return { result, resultReplaced: false, context: [], hookErrors: [...hookErrors, `PostToolUse: ${(e as Error)?.message ?? String(e)}`] }
    }
  }

  private decide(policy: ExecPolicy, command: readonly string[], cwd: string, env: RuntimeDescription['env']): CommandDecision {
    const PATH = env?.PATH ?? (this.base.env as Record<string, string | undefined> | undefined)?.PATH ?? process.env.PATH ?? ''
    // The workspace lets a redirection into a write root (or /dev/null, an fd
    // duplication) decide like a plain word instead of making the script
    // opaque; a target outside it, or on a protected path, still asks.
    const facts = this.facts.get()
    const workspace = { cwd, writableRoots: facts.writeRoots, protectedPaths: facts.report?.filesystem.protected ?? [] }
    return policy.decide(command, { resolve: { PATH, cwd, writableRoots: this.writeRoots() }, workspace, ...(env ? { env } : {}) })
  }

  private workspaceFacts(): WorkspaceFacts {
    const facts = this.facts.get()
    return { cwd: this.baseCwd, writableRoots: [...facts.writeRoots], protectedPaths: [...(facts.report?.filesystem.protected ?? [])] }
  }

  /**
   * Where a sandboxed command of this orchestrator could have written: the
   * profile's write roots (base-facts.ts), and the private $TMPDIR of each
   * kept sandbox (sandbox-pool.ts), which outlives the command that wrote
   * it. A PATH entry inside one cannot be trusted to name a program, and a
   * repository inside one is a risk for a wider attempt's git.
   */
  private writeRoots(): string[] {
    const kept = this.pool?.tmpDirs() ?? []
    return kept.length ? [...this.facts.get().writeRoots, ...kept] : this.facts.get().writeRoots
  }

  /**
   * The widening of attempt 1: none, or "no sandbox" for `require_escalated`
   * and for a rule's allow under allowMeansNoSandbox. Git repositories the
   * sandbox could have written (planted-repos.ts) would run their config
   * and hooks with those rights: an asked request names them (`risks`);
   * allowMeansNoSandbox, which nobody approves, runs in the profile's
   * sandbox instead, and says why.
   */
  private firstWidening(requirement: Requirement, desc: RuntimeDescription, decision: CommandDecision, cwd: string, rec: Recorder): { widening?: Widening; risks: string[] } {
    const escalated = requirement.kind === 'skip' ? requirement.sandbox === 'escalated' : desc.sandboxPermissions === 'require_escalated'
    if (!escalated) return desc.additionalWrite?.length ? { widening: writeWidening(cwd, desc.additionalWrite), risks: [] } : { risks: [] }
    const risks = this.risks(cwd, decision, desc.env)
    if (requirement.kind === 'skip' && risks.length > 0) {
      rec.notes.push(`allowMeansNoSandbox: runs in the profile's sandbox instead, because ${risks.join('; ')}`)
      return { risks: [] }
    }
    return { widening: noSandboxWidening(this.base, this.o.allowUnsandboxed), risks }
  }

  /** What a wider attempt of this request would run that a sandboxed command could have written. */
  private risks(cwd: string, decision: CommandDecision, env: RuntimeDescription['env']): string[] {
    const dirs = runDirs(cwd, decision.opaque ? [] : decision.segments.map((s) => s.argv))
    return riskLines(plantedRepos({ dirs, writeRoots: this.writeRoots(), env }))
  }

  private requirement(decision: CommandDecision, desc: RuntimeDescription): Requirement {
    return requirementFor({
      decision,
      settings: this.settings,
      sandboxPermissions: desc.sandboxPermissions ?? 'use_default',
      justification: desc.justification,
      allowMeansNoSandbox: this.o.allowMeansNoSandbox,
      patch: desc.approval?.promptClass === 'patch',
      interactive: desc.interactive === true,
      ...(desc.additionalWrite?.length ? { additionalWrite: desc.additionalWrite } : {}),
    })
  }
}

/**
 * The orchestrator's stop (abortAll): every live run listens to it until it
 * ends (linked-signal.ts) — one listener per run, removed at its end, so
 * Node's leak warning at 11 (e.g. 11 unified-exec sessions) is no leak.
 */
function stopController(): AbortController {
  const c = new AbortController()
  setMaxListeners(0, c.signal)
  return c
}

/** The request to run after PreToolUse hooks: the same, the runtime's rewrite of it, or undefined when it takes none. */
function rewritten<Req, Out>(runtime: ToolRuntime<Req, Out>, request: Req, before: readonly string[], after: readonly string[]): Req | undefined {
  if (before.length === after.length && before.every((w, i) => w === after[i])) return request
  return runtime.withCommand ? runtime.withCommand(request, after) : undefined
}

/** The widening of a request that needs write roots beyond the profile's (runtime.ts `additionalWrite`). */
function writeWidening(cwd: string, roots: readonly string[]): Widening {
  return { write: [...new Set(roots.map((r) => resolve(cwd, r)))], read: [], network: false, localSockets: false, full: false, unsandboxed: false }
}
