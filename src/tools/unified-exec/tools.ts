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
import { CAPTURE_BYTES, clamp, DEFAULT_TERMINAL, EXEC_YIELD, MODEL_OUTPUT, POLL_YIELD, WRITE_YIELD } from './limits.js'
import { patchCommand } from '../apply-patch/exec-route.js'
import { patchToolOutput } from '../apply-patch/tool.js'
import { execCommandParams, jsonSchemaOf, writeStdinParams, type ExecCommandParams, type WriteStdinParams } from './params.js'
import { ProcessStore, type StoreEntry } from './process-store.js'
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
  'Run a shell command in the sandbox. Returns its output and exit code if it ends within yield_time_ms, else the output so far and a session id for write_stdin. With tty: true the command gets a terminal of its own (interactive programs, prompts).'
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
 * end). What they add is folded into the text the model reads.
 */
async function pairedPost(session: Session, output: ToolOutput, ctx: ToolContext): Promise<ToolOutput> {
  if (!session.origin) return output
  return withContext(await ctx.postToolUse(session.origin, output))
}

/** A PostToolUse answer as the model reads it: the output, then each added context line. */
function withContext(post: { output: ToolOutput; context: readonly string[] }): ToolOutput {
  if (post.context.length === 0 || post.output.kind !== 'text') return post.output
  return { ...post.output, text: `${post.output.text}\n${post.context.map((c) => `Context: ${c}`).join('\n')}` }
}

/** A direct, parallel function tool whose parameters are `schema`'s JSON Schema. */
function functionTool(name: string, description: string, schema: z.ZodType, handler: Tool['handler'], hooks: Tool['hooks']): Tool {
  return { name: { name }, spec: { kind: 'function', description, parameters: jsonSchemaOf(schema) }, exposure: 'direct', parallel: true, ...(handler ? { handler } : {}), ...(hooks ? { hooks } : {}) }
}

export function createUnifiedExec(options: UnifiedExecOptions = {}): UnifiedExec {
  const store = new ProcessStore<Session>()
  const shell = options.shell ?? '/bin/sh'

  async function execCommand(input: unknown, ctx: ToolContext): Promise<ToolOutput> {
    const parsed = execCommandParams.safeParse(input)
    if (!parsed.success) return failure(`invalid exec_command arguments: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`)
    const p: ExecCommandParams = parsed.data
    // `apply_patch …` in a command is a patch, never a shell (src/tools/apply-patch/invocation.ts):
    // the same route as the shell tool and orchestrator.exec(). exec_command runs its own
    // PostToolUse (hooks: post false), so this one call gets it here.
    const patched = await patchCommand(ctx.orchestrator, [shell, '-c', p.cmd], { ...(p.workdir !== undefined ? { cwd: p.workdir } : {}), ...(p.timeout_ms !== undefined ? { timeout: p.timeout_ms } : {}), signal: ctx.signal })
    if (patched) return withContext(await ctx.postToolUse({ callId: ctx.callId, tool: ctx.tool, input }, patchToolOutput(patched, ctx)))
    const yieldMs = clamp(p.yield_time_ms, EXEC_YIELD)
    const request: ExecCommandRequest = {
      command: [shell, '-c', p.cmd],
      ...(p.workdir !== undefined ? { cwd: p.workdir } : {}),
      ...(p.tty ? { tty: { rows: p.rows ?? DEFAULT_TERMINAL.rows, cols: p.cols ?? DEFAULT_TERMINAL.cols } } : {}),
      yieldMs,
      ...(p.timeout_ms !== undefined ? { timeoutMs: p.timeout_ms } : {}),
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
    if (!session || outcome.status !== 'completed' && outcome.status !== 'timed_out') return failure(`${outcome.status}: ${outcome.reason ?? 'the command did not run'}`)
    const notes = yieldMs !== (p.yield_time_ms ?? yieldMs) ? [`yield_time_ms clamped to ${yieldMs}`] : []
    if (outcome.attempts.length > 1) notes.push(`the sandbox denied the first run; this is the approved run with wider permissions`)
    session.origin = { callId: ctx.callId, tool: ctx.tool, input }
    if (session.exited) {
      const post = { result: outcome.result!, resultReplaced: outcome.resultReplaced, context: outcome.context, hookErrors: outcome.hookErrors }
      session.after = Promise.resolve(post)
      return pairedPost(session, outputOf(await reportOf(session, Date.now() - started, modelMax(p.max_output_bytes), 0, notes)), ctx)
    }
    if (outcome.after) session.after = outcome.after
    const { entry, pruned } = store.add(session)
    if (pruned) notes.push(`session ${pruned.id} was the least recently used and was ended to make room (at most ${store.size} sessions)`)
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
    return pairedPost(session, outputOf(report), ctx)
  }

  async function writeStdin(input: unknown, ctx: ToolContext): Promise<ToolOutput> {
    const parsed = writeStdinParams.safeParse(input)
    if (!parsed.success) return failure(`invalid write_stdin arguments: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`)
    const entry = store.use(parsed.data.session_id)
    if (!entry) return failure(`no session ${parsed.data.session_id}: it ended and its end was reported, it was pruned, or it never existed`)
    return entry.lock.run(() => interact(entry, parsed.data, ctx))
  }

  return {
    // The dispatcher's PostToolUse runs through pairedPost(), once, on the output that reports the
    // end, with the exec_command call; write_stdin continues an approved call: no PreToolUse.
    execCommand: functionTool('exec_command', EXEC_DESCRIPTION, execCommandParams, execCommand, { post: false }),
    writeStdin: functionTool('write_stdin', WRITE_DESCRIPTION, writeStdinParams, writeStdin, { pre: false, post: false }),
    store,
    close: () => store.terminateAll(),
  }
}

