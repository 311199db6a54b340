/**
 * exec_command and write_stdin: two tools over one process store, made
 * together by createUnifiedExec() (a store per agent session).
 *
 * exec_command goes through the orchestrator — PreToolUse hooks, exec
 * policy, approval, the sandbox of each attempt, at most one wider retry
 * (`orchestrator.run(unifiedExecRuntime, request)`) — then hands back
 * either the ended command's output and status, or an output snapshot and
 * a session id. write_stdin types into a live session's terminal (or, with
 * no input, polls) and returns what the process printed since the last
 * call. It is no new command: no PreToolUse hook, policy or approval runs
 * for it. When it sees the process end, the PostToolUse hooks of the
 * exec_command call that started it have run on the final result (with
 * that call's id), and their context or replaced output is what it hands
 * back.
 */
import type { z } from 'zod'
import { CordonError, ToolSetupError } from '../../errors.js'
import type { Tool, ToolContext, ToolOutput } from '../types.js'
import { CAPTURE_BYTES, clamp, DEFAULT_TERMINAL, EXEC_YIELD, MAX_SESSIONS, MAX_TIMEOUT, MODEL_OUTPUT, POLL_YIELD, WRITE_YIELD } from './limits.js'
import { patchCommand } from '../apply-patch/exec-route.js'
import { patchToolOutput } from '../apply-patch/tool.js'
import { execCommandParams, jsonSchemaOf, writeStdinParams, type ExecCommandParams, type WriteStdinParams } from './params.js'
import { ProcessStore, type Reservation, type StoreEntry } from './process-store.js'
import { reportText, succeeded, type Report } from './report.js'
import { unifiedExecRuntime, type ExecCommandRequest } from './runtime.js'
import type { Session } from './session.js'
import { forModel } from './truncate.js'

export interface UnifiedExec {
  readonly execCommand: Tool
  readonly writeStdin: Tool
  /** The live sessions (bounded, LRU-pruned). */
  readonly store: ProcessStore<Session>
  /** End every session (the agent's session ends): each process group and everything it started is killed. */
  close(): void
}

export interface UnifiedExecOptions {
  /** The shell exec_command's `cmd` runs in. Default `/bin/sh`. */
  shell?: string
}

const EXEC_DESCRIPTION =
  'Run a shell command in the sandbox. Returns its output and exit code if it ends within yield_time_ms, else the output so far and a session id for write_stdin. With tty: true the command gets a terminal of its own (interactive programs, prompts). In the reply, everything after the first "Output:" line is what the command printed.'
const WRITE_DESCRIPTION =
  'Type characters into a running exec_command session (its terminal) and return the output since the last call; with empty chars, wait for more output. A session without a terminal accepts only "\\u0003" (interrupt).'

function failure(text: string): ToolOutput {
  return { kind: 'text', text, success: false }
}

/** A model-readable failure for what a command or its input did wrong; anything else is the step's error. */
function asFailure(e: unknown): ToolOutput {
  if (e instanceof CordonError) return failure(`${e.code}: ${e.message}`)
  throw e
}

function modelMax(v: number | undefined): number {
  return clamp(v, MODEL_OUTPUT)
}

/** What a session printed since the last call, and its end when it has ended (awaiting the deferred PostToolUse). */
async function reportOf(session: Session, waitedMs: number, maxBytes: number, id: number, notes: string[]): Promise<Report> {
  const output = forModel(session.output.take(), maxBytes)
  if (!session.exited) return { waitedMs, sessionId: id, output, notes }
  const post = session.after ? await session.after : undefined
  const end = post?.result ?? session.result
  const shown = post?.resultReplaced && end ? forModel({ head: Buffer.from(end.stdout), tail: Buffer.alloc(0), total: Buffer.byteLength(end.stdout) }, maxBytes) : output
  return { waitedMs, ...(end ? { end } : {}), output: shown, ...(post ? { post } : {}), notes }
}

function outputOf(r: Report): ToolOutput {
  return { kind: 'text', text: reportText(r), success: succeeded(r) }
}

/**
 * The dispatcher's PostToolUse hooks of the exec_command call that started
 * `session`, on the output that reports its end (exec_command itself when
 * the command ended within its window, else the write_stdin that saw the
 * end). What they add is folded into the text the model reads: into the
 * report's header, before its `Output:` line.
 */
async function pairedPost(session: Session, report: Report, ctx: ToolContext): Promise<ToolOutput> {
  const output = outputOf(report)
  if (!session.origin) return output
  const post = await ctx.postToolUse(session.origin, output)
  return post.output === output ? outputOf({ ...report, context: post.context }) : withContext(post)
}

/**
 * A PostToolUse answer as the model reads it: each added context line, then
 * the output. Never after it: the output's end is what a command prints, and
 * a command printing `Context: …` would pass for the host.
 */
function withContext(post: { output: ToolOutput; context: readonly string[] }): ToolOutput {
  if (post.context.length === 0 || post.output.kind !== 'text') return post.output
  return { ...post.output, text: `${post.context.map((c) => `Context: ${c}`).join('\n')}\n${post.output.text}` }
}

/** A direct, parallel function tool whose parameters are `schema`'s JSON Schema. */
function functionTool(name: string, description: string, schema: z.ZodType, handler: Tool['handler'], hooks: Tool['hooks']): Tool {
  return { name: { name }, spec: { kind: 'function', description, parameters: jsonSchemaOf(schema) }, exposure: 'direct', parallel: true, ...(handler ? { handler } : {}), ...(hooks ? { hooks } : {}) }
}

export function createUnifiedExec(options: UnifiedExecOptions = {}): UnifiedExec {
  const store = new ProcessStore<Session>()
  const shell = options.shell ?? '/bin/sh'

  let closed = false
  const CLOSED = 'unified exec is closed (the agent session ended): no command starts and no session is left'

  async function execCommand(input: unknown, ctx: ToolContext): Promise<ToolOutput> {
    if (closed) return failure(CLOSED)
    const parsed = execCommandParams.safeParse(input)
    if (!parsed.success) return failure(`invalid exec_command arguments: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`)
    const p: ExecCommandParams = parsed.data
    const notes: string[] = []
    const timeoutMs = p.timeout_ms === undefined ? undefined : Math.min(p.timeout_ms, MAX_TIMEOUT)
    if (timeoutMs !== p.timeout_ms) notes.push(`timeout_ms clamped to ${timeoutMs}`)
    // `apply_patch …` in a command is a patch, never a shell (src/tools/apply-patch/invocation.ts):
    // the same route as the shell tool and orchestrator.exec(). exec_command runs its own
    // PostToolUse (hooks: post false), so this one call gets it here.
    const patched = await patchCommand(ctx.orchestrator, [shell, '-c', p.cmd], { ...(p.workdir !== undefined ? { cwd: p.workdir } : {}), ...(timeoutMs !== undefined ? { timeout: timeoutMs } : {}), signal: ctx.signal })
    if (patched) return withContext(await ctx.postToolUse({ callId: ctx.callId, tool: ctx.tool, input }, patchToolOutput(patched, ctx)))
    // The bound counts calls still starting, not only stored sessions: one response's
    // parallel calls cannot start more sandboxes at once than the store holds.
    const place = store.reserve()
    if (!place) return failure(`too many commands starting: ${MAX_SESSIONS} commands of this agent are being decided or started; wait for one of these calls to return and call again`)
    try {
      return await startSession(p, timeoutMs, notes, input, place, ctx)
    } finally {
      place.release()
    }
  }

  async function startSession(p: ExecCommandParams, timeoutMs: number | undefined, notes: string[], input: unknown, place: Reservation<Session>, ctx: ToolContext): Promise<ToolOutput> {
    const yieldMs = clamp(p.yield_time_ms, EXEC_YIELD)
    const request: ExecCommandRequest = {
      command: [shell, '-c', p.cmd],
      ...(p.workdir !== undefined ? { cwd: p.workdir } : {}),
      ...(p.tty ? { tty: { rows: p.rows ?? DEFAULT_TERMINAL.rows, cols: p.cols ?? DEFAULT_TERMINAL.cols } } : {}),
      yieldMs,
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(p.sandbox_permissions ? { sandboxPermissions: p.sandbox_permissions } : {}),
      ...(p.justification !== undefined ? { justification: p.justification } : {}),
    }
    const started = Date.now()
    // The run's own result (denial detection, PostToolUse) keeps the first CAPTURE_BYTES of each
    // stream, not the sandbox's 64 MiB: a chatty session may live long, the store holds 64.
    const outcome = await ctx.orchestrator.run(unifiedExecRuntime, request, { signal: ctx.signal, callId: ctx.callId, maxBuffer: CAPTURE_BYTES, keep: 'head' })
    if (outcome.status === 'canceled') return { kind: 'aborted', text: `aborted: ${outcome.reason ?? 'canceled'}` }
    if (outcome.status === 'error') {
      // The sandbox could not be set up at all: the step's error, as for the shell tool.
      const err = outcome.attempts[outcome.attempts.length - 1]?.error ?? { name: 'Error', code: 'E_UNKNOWN', message: outcome.reason ?? 'the sandbox could not be set up' }
      throw new ToolSetupError(ctx.tool.name, err)
    }
    const session = outcome.output?.session
    if (!session || outcome.status !== 'completed' && outcome.status !== 'timed_out') return failure([`${outcome.status}: ${outcome.reason ?? 'the command did not run'}`, ...notes.map((n) => `Note: ${n}`)].join('\n'))
    if (yieldMs !== (p.yield_time_ms ?? yieldMs)) notes.push(`yield_time_ms clamped to ${yieldMs}`)
    if (outcome.attempts.length > 1) notes.push(`the sandbox denied the first run; this is the approved run with wider permissions`)
    session.origin = { callId: ctx.callId, tool: ctx.tool, input }
    if (session.exited) {
      const post = { result: outcome.result!, resultReplaced: outcome.resultReplaced, context: outcome.context, hookErrors: outcome.hookErrors }
      session.after = Promise.resolve(post)
      return pairedPost(session, await reportOf(session, Date.now() - started, modelMax(p.max_output_bytes), 0, notes), ctx)
    }
    if (closed) {
      // close() came while this call was being approved or started: the store it emptied
      // must not get a session afterwards (a process tree outliving the agent session).
      await session.terminate()
      return failure(`${CLOSED}; this command started meanwhile and was stopped (with everything it started)`)
    }
    if (outcome.after) session.after = outcome.after
    const { entry, pruned } = place.add(session)
    if (pruned) notes.push(`session ${pruned.id} was the least recently used and was ended to make room (at most ${MAX_SESSIONS} sessions)`)
    return outputOf(await reportOf(session, Date.now() - started, modelMax(p.max_output_bytes), entry.id, notes))
  }

  async function interact(entry: StoreEntry<Session>, p: WriteStdinParams, ctx: ToolContext): Promise<ToolOutput> {
    const session = entry.process
    const range = p.chars === '' ? POLL_YIELD : WRITE_YIELD
    const yieldMs = clamp(p.yield_time_ms, range)
    const started = Date.now()
    try {
      if (p.rows !== undefined || p.cols !== undefined) session.resize({ rows: p.rows ?? DEFAULT_TERMINAL.rows, cols: p.cols ?? DEFAULT_TERMINAL.cols })
      session.write(p.chars)
    } catch (e) {
      return asFailure(e)
    }
    const onAbort = () => void session.terminate()
    ctx.signal.addEventListener('abort', onAbort, { once: true })
    try {
      await session.settle(yieldMs, ctx.signal)
    } finally {
      ctx.signal.removeEventListener('abort', onAbort)
    }
    if (ctx.signal.aborted) {
      await session.terminate()
      store.remove(entry.id)
      return { kind: 'aborted', text: `aborted: session ${entry.id} was stopped (with everything it started)` }
    }
    const notes = yieldMs !== (p.yield_time_ms ?? yieldMs) ? [`yield_time_ms clamped to ${yieldMs}`] : []
    const report = await reportOf(session, Date.now() - started, modelMax(p.max_output_bytes), entry.id, notes)
    if (!report.end) return outputOf(report)
    store.remove(entry.id) // its end is reported once; the id finds nothing afterwards
    return pairedPost(session, report, ctx)
  }

  async function writeStdin(input: unknown, ctx: ToolContext): Promise<ToolOutput> {
    const parsed = writeStdinParams.safeParse(input)
    if (!parsed.success) return failure(`invalid write_stdin arguments: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`)
    const entry = store.use(parsed.data.session_id)
    if (!entry) return failure(closed ? CLOSED : `no session ${parsed.data.session_id}: it ended and its end was reported, it was pruned, or it never existed`)
    return entry.lock.run(() => interact(entry, parsed.data, ctx))
  }

  return {
    // The dispatcher's PostToolUse runs through pairedPost(), once, on the output that reports the
    // end, with the exec_command call; write_stdin continues an approved call: no PreToolUse.
    execCommand: functionTool('exec_command', EXEC_DESCRIPTION, execCommandParams, execCommand, { post: false }),
    writeStdin: functionTool('write_stdin', WRITE_DESCRIPTION, writeStdinParams, writeStdin, { pre: false, post: false }),
    store,
    close: () => {
      closed = true
      store.terminateAll()
    },
  }
}

