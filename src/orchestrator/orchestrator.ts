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
import { resolve } from 'node:path'
import { AbortError, PolicyError } from '../errors.js'
import type { CommandDecision, ExecPolicy } from '../exec-policy/index.js'
import { createSandbox as defaultCreateSandbox, type Sandbox } from '../sandbox/sandbox.js'
import type { SandboxOptions } from '../sandbox/options.js'
import type { Approver } from './approval/approval.js'
import type { ApprovalSettings } from './approval/approval-mode.js'
import { runAttempt } from './attempt.js'
import type { Deciders } from './approval/decision-flow.js'
import { approveFirst } from './approval/first-approval.js'
import { Recorder } from './outcome-recorder.js'
import { escalate, type EscalationContext } from './escalation/escalation.js'
import type { Hooks } from './hooks/hooks.js'
import { parseWith } from '../profile/parse-with.js'
import { execRequestSchema, expandHome, orchestratorOptionsSchema, type ExecRequest, type ExecRequestParsed, type OrchestratorOptionsParsed } from './options.js'
import type { ExecOutcome } from './outcome.js'
import { PolicyStore } from './policy-store.js'
import { NetworkApprovals } from './approval/network-approval.js'
import { requirementFor, type Requirement } from './approval/requirement.js'
import { SessionCache } from './approval/session-cache.js'
import { runPostToolUse, runPreToolUse } from './hooks/tool-hooks.js'
import { describeWidening, noSandboxWidening, type Widening } from './escalation/widen.js'
import { plantedRepos, riskLines, runDirs } from './escalation/planted-repos.js'
import { BaseFacts } from './base-facts.js'
import { scopeOf } from './escalation/scope.js'
import type { AttemptRecord, OutputSpec } from './attempt.js'
import { DEFAULT_MAX_BUFFER } from './output.js'

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
  readonly sessionCache: SessionCache
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
  private stop = new AbortController()
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
    this.make = (this.o.createSandbox as OrchestratorOptions['createSandbox']) ?? defaultCreateSandbox
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

  abortAll(reason = 'aborted'): void {
    this.stop.abort(new AbortError(reason))
    this.stop = new AbortController()
  }

  async assess(raw: ExecRequest): Promise<Assessment> {
    const req = parseWith(execRequestSchema, raw ?? {}, 'exec request')
    const cwd = resolve(this.baseCwd, req.cwd ?? '.')
    this.facts.checkRulesFiles()
    const policy = await this.store.current()
    const decision = this.decide(policy, req.command, cwd, req)
    return { command: req.command, policy: decision, requirement: this.requirement(decision, req) }
  }

  /**
   * An abort — the request's signal, abortAll(), an approver's `abort` — is
   * not an exception (execa's contract, as sandbox.run has it): the exec
   * resolves with status `canceled` and `isCanceled: true`, carrying what
   * was known and what ran by then. Inside, the steps stop by throwing
   * AbortError; it ends here.
   */
  async exec(raw: ExecRequest): Promise<ExecOutcome> {
    const req = parseWith(execRequestSchema, raw ?? {}, 'exec request')
    const rec = new Recorder(req.command, resolve(this.baseCwd, req.cwd ?? '.'))
    try {
      return await this.decideAndRun(req, rec)
    } catch (e) {
      if (e instanceof AbortError) return rec.finish('canceled', e.message)
      throw e
    }
  }

  private async decideAndRun(req: ExecRequestParsed, rec: Recorder): Promise<ExecOutcome> {
    const signal = AbortSignal.any([this.stop.signal, ...(req.signal ? [req.signal] : [])])
    if (signal.aborted) throw new AbortError('aborted before the command was decided')
    const cwd = rec.cwd
    const hooks = this.o.hooks as Hooks
    const pre = await runPreToolUse(
      hooks.preToolUse,
      { event: 'PreToolUse', command: req.command, cwd, sandboxPermissions: req.sandboxPermissions, ...(req.justification ? { justification: req.justification } : {}) },
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
    this.facts.checkRulesFiles()
    const policy = await this.store.current()
    const decision = this.decide(policy, pre.command, cwd, req)
    const requirement = this.requirement(decision, req)
    rec.policy = decision
    rec.requirement = requirement
    if (requirement.kind === 'forbidden') {
      rec.approval = { decision: 'denied', source: 'policy', reason: requirement.reason }
      return rec.finish('forbidden', requirement.reason)
    }
    const { widening, risks } = this.firstWidening(requirement, req, decision, cwd, rec)
    const approval = await approveFirst(
      {
        request: req,
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
    const runOpts = { ...(req.timeout ? { timeout: req.timeout } : {}), ...(req.input !== undefined ? { input: req.input } : {}), ...(req.env ? { env: req.env } : {}), signal }
    const output: OutputSpec = { listener: req.onOutput, maxBuffer: req.maxBuffer ?? DEFAULT_MAX_BUFFER, keep: req.keep }
    // A network allowlist's proxy asks this session's approvers; the rules files' network_rules join its lists.
    const netCtx = { command: pre.command, cwd, rules: policy.policy.networkRules, signal }
    const make = (o: SandboxOptions) => this.make(this.network.sandboxOptions(o, netCtx))
    const first = await runAttempt({
      index: 1,
      options: this.facts.optionsFor(widening, widening && this.facts.get().widening),
      widening,
      approval,
      command: pre.command,
      cwd,
      run: runOpts,
      output,
      notes: rec.notes,
      createSandbox: make,
    })
    rec.attempts.push(first)
    if (first.error) return rec.finish('error', first.error.message)
    if (first.result?.isCanceled) throw new AbortError('aborted while the command ran')
    if (first.denials.length > 0) {
      const ctx: EscalationContext = {
        request: req,
        command: pre.command,
        cwd,
        decision,
        policy,
        settings: this.settings,
        toolAllows: req.escalateOnFailure ?? this.o.escalateOnFailure,
        optionsFor: (w, limits) => this.facts.optionsFor(w, limits),
        deciders: this.deciders,
        cache: this.sessionCache,
        amendFile: this.amendFile,
        rulesFiles: this.facts.canonicalRulesFiles(),
        risks: () => this.risks(cwd, decision, req),
        amendments: rec.amendments,
        notes: rec.notes,
        hookErrors: rec.hookErrors,
        signal,
        run: runOpts,
        output,
        createSandbox: make,
        onAbort: () => this.abortAll('an approver answered abort'),
      }
      const esc = await escalate(ctx, first)
      rec.escalation = esc.escalation
      if (esc.attempt) rec.attempts.push(esc.attempt)
      if (esc.attempt?.result?.isCanceled) throw new AbortError('aborted while the wider attempt ran')
      if (esc.attempt?.error) return rec.finish('error', esc.attempt.error.message)
    }
    const last = rec.attempts[rec.attempts.length - 1] as AttemptRecord
    if (last.result) {
      const post = await runPostToolUse(hooks.postToolUse, { event: 'PostToolUse', command: pre.command, cwd, result: last.result }, this.o.hookTimeoutMs, signal, rec.hookErrors)
      rec.result = post.result
      rec.resultReplaced = post.replaced
      rec.context.push(...post.context)
    }
    if (signal.aborted) throw new AbortError('aborted while PostToolUse hooks ran')
    // The command's own timeout is the command's outcome, not the approver's (`approval_timed_out`).
    if (last.result?.timedOut) return rec.finish('timed_out', `the command ran past its timeout (${req.timeout ?? '?'} ms) and was stopped`)
    return rec.finish('completed')
  }

  private decide(policy: ExecPolicy, command: readonly string[], cwd: string, req: ExecRequestParsed): CommandDecision {
    const PATH = req.env?.PATH ?? (this.base.env as Record<string, string | undefined> | undefined)?.PATH ?? process.env.PATH ?? ''
    // The workspace lets a redirection into a write root (or /dev/null, an fd
    // duplication) decide like a plain word instead of making the script
    // opaque; a target outside it, or on a protected path, still asks.
    const facts = this.facts.get()
    const workspace = { cwd, writableRoots: facts.writeRoots, protectedPaths: facts.report?.filesystem.protected ?? [] }
    return policy.decide(command, { resolve: { PATH, cwd, writableRoots: facts.writeRoots }, workspace, ...(req.env ? { env: req.env } : {}) })
  }

  /** The profile's write roots (base-facts.ts): a PATH entry inside one cannot be trusted to name a program. */
  private writeRoots(): string[] {
    return this.facts.get().writeRoots
  }

  /**
   * The widening of attempt 1: none, or "no sandbox" for `require_escalated`
   * and for a rule's allow under allowMeansNoSandbox. Git repositories the
   * sandbox could have written (planted-repos.ts) would run their config
   * and hooks with those rights: an asked request names them (`risks`);
   * allowMeansNoSandbox, which nobody approves, runs in the profile's
   * sandbox instead, and says why.
   */
  private firstWidening(requirement: Requirement, req: ExecRequestParsed, decision: CommandDecision, cwd: string, rec: Recorder): { widening?: Widening; risks: string[] } {
    const escalated = requirement.kind === 'skip' ? requirement.sandbox === 'escalated' : req.sandboxPermissions === 'require_escalated'
    if (!escalated) return { risks: [] }
    const risks = this.risks(cwd, decision, req)
    if (requirement.kind === 'skip' && risks.length > 0) {
      rec.notes.push(`allowMeansNoSandbox: runs in the profile's sandbox instead, because ${risks.join('; ')}`)
      return { risks: [] }
    }
    return { widening: noSandboxWidening(this.base, this.o.allowUnsandboxed), risks }
  }

  /** What a wider attempt of this request would run that a sandboxed command could have written. */
  private risks(cwd: string, decision: CommandDecision, req: ExecRequestParsed): string[] {
    const dirs = runDirs(cwd, decision.opaque ? [] : decision.segments.map((s) => s.argv))
    return riskLines(plantedRepos({ dirs, writeRoots: this.writeRoots(), env: req.env }))
  }

  private requirement(decision: CommandDecision, req: ExecRequestParsed): Requirement {
    return requirementFor({
      decision,
      settings: this.settings,
      sandboxPermissions: req.sandboxPermissions,
      justification: req.justification,
      allowMeansNoSandbox: this.o.allowMeansNoSandbox,
      patch: req.patch !== undefined,
    })
  }
}
