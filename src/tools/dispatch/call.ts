/**
 * One call, start to end: resolve the tool in the call's step, check the
 * payload kind, take the lock, PreToolUse hooks, lifecycle start, the
 * handler with the call's own signal, PostToolUse hooks, the model-context
 * bound, lifecycle end. Never rejects: the settled value carries the
 * output, and `fatal` when the call could not run at all.
 */
import { AbortError, ToolContractError } from '../../errors.js'
import type { Orchestrator } from '../../orchestrator/orchestrator.js'
import { displayName } from '../names.js'
import type { Step } from '../router.js'
import { PAYLOAD_OF, type ModelToolSpec, type Tool, type ToolCall, type ToolContext, type ToolName, type ToolOutput } from '../types.js'
import type { RwLock } from './rw-lock.js'
import { runToolPost, runToolPre, type ToolHooks } from './tool-hooks.js'
import { preview, truncateForModel } from './truncate.js'
import { inputOf, rewriteMisfit } from './input.js'
import { escaped, quote } from '../../orchestrator/text.js'

/** Lifecycle events: `start` after PreToolUse hooks let the call run, `end` when its output is final. */
export type ToolEvent =
  | { readonly type: 'start'; readonly callId: string; readonly tool: string; readonly stepId: number; readonly inputPreview: string }
  | {
      readonly type: 'end'
      readonly callId: string
      readonly tool: string
      readonly stepId: number
      readonly output: ToolOutput['kind'] | 'error'
      readonly success: boolean
      readonly durationMs: number
      readonly outputPreview: string
    }

export interface CallSettings {
  readonly orchestrator: Orchestrator
  readonly hooks: ToolHooks
  readonly hookTimeoutMs: number
  readonly maxOutputBytes: number
  readonly previewBytes: number
  /** Bound on one call's payload (input.ts). */
  readonly maxInputBytes: number
  /** Lifecycle events, built only when someone listens. */
  readonly emit: (event: () => ToolEvent) => void
  readonly lock: RwLock
  /** How long an aborted call waits for its handler to stop what it started (ms) before its output is `aborted` without it. */
  readonly abortGraceMs: number
}

export interface Settled {
  readonly output: ToolOutput
  readonly context: string[]
  /** The call could not run at all (ToolContractError, ToolSetupError, a handler's bug). */
  readonly fatal?: unknown
}

/** `namespace/name` or `name` of valid parts (names.ts): safe to echo as it is. */
const VALID_NAME = /^(?:[A-Za-z0-9_-]{1,64}\/)?[A-Za-z0-9_-]{1,64}$/

/** The parent of a host's call made without a signal: never aborted, so one serves every such call, and nothing listens to it. */
export const NEVER: AbortSignal = new AbortController().signal

const done = (output: ToolOutput, context: string[] = []): Settled => ({ output, context })

export async function executeCall(s: CallSettings, step: Step, call: ToolCall, parent: AbortSignal, from: 'model' | 'host', hookErrors: string[]): Promise<Settled> {
  const tool = resolveTool(step, call)
  // The model wrote the name: echoed as it is only when it is a tool name at all (names.ts), else quoted and escaped.
  const shown = tool || VALID_NAME.test(displayName(call.name)) ? displayName(call.name) : quote(displayName(call.name), 80)
  if (!tool || (from === 'host' && tool.exposure === 'direct-model-only')) {
    return done({ kind: 'unsupported', text: `unsupported call: ${shown} is not a tool here${from === 'host' && tool ? ' (it is callable by the model only)' : ''}` })
  }
  const expected = tool.spec.kind === 'hosted' ? undefined : PAYLOAD_OF[tool.spec.kind]
  if (expected !== call.payload.kind) {
    const error = new ToolContractError(shown, expected ?? 'provider-run (hosted)', call.payload.kind)
    return { output: { kind: 'aborted', text: `not run: ${error.message}` }, context: [], fatal: error }
  }
  const parsed = inputOf(call, s.maxInputBytes)
  if ('error' in parsed) return done({ kind: 'text', text: parsed.error, success: false })
  const child = new AbortController()
  const onAbort = () => child.abort(parent.reason)
  if (parent.aborted) onAbort()
  else if (parent !== NEVER) parent.addEventListener('abort', onAbort, { once: true })
  let release: (() => void) | undefined
  // A handler left running after an abort (runLocked) keeps the lock until it settles: it may still touch what the lock guards.
  let held: Promise<void> | undefined
  try {
    release = await s.lock.acquire(tool.parallel ? 'read' : 'write', child.signal)
    const settled = await runLocked(s, step, call, tool, parsed.input, child.signal, hookErrors, (p) => (held = p))
    // What a search showed the model is in its list from the next step on (router.ts); a host's own search shows the model nothing.
    if (from === 'model' && settled.output.kind === 'search') step.reveal(toolNames(settled.output.tools))
    return settled
  } catch (e) {
    if (e instanceof AbortError || child.signal.aborted) return done(aborted(undefined))
    // ToolSetupError, or a handler's bug: the step cannot go on; the call still gets an output.
    return { output: { kind: 'aborted', text: `the call could not run: ${(e as Error)?.message ?? String(e)}` }, context: [], fatal: e }
  } finally {
    const r = release
    if (held && r) void held.then(r)
    else r?.()
    if (parent !== NEVER) parent.removeEventListener('abort', onAbort)
  }
}

async function runLocked(s: CallSettings, step: Step, call: ToolCall, tool: Tool, input: unknown, signal: AbortSignal, hookErrors: string[], hold: (late: Promise<void>) => void): Promise<Settled> {
  const name = displayName(call.name)
  const pre = tool.hooks?.pre === false ? ({ kind: 'continue', input } as const) : await runToolPre(s.hooks.preToolUse, { tool: call.name, callId: call.callId, input }, s.hookTimeoutMs, signal, hookErrors)
  if (signal.aborted) return done(aborted(undefined))
  if (pre.kind === 'blocked') return done({ kind: 'text', text: `blocked: ${pre.reason}`, success: false })
  const misfit = rewriteMisfit(call.payload.kind, pre.input, name)
  if (misfit) return done({ kind: 'text', text: `blocked: ${misfit}`, success: false })
  const started = Date.now()
  s.emit(() => ({ type: 'start', callId: call.callId, tool: name, stepId: step.id, inputPreview: shownPreview(previewText(pre.input), s.previewBytes) }))
  const postToolUse: ToolContext['postToolUse'] = async (original, out) => {
    const post = await runToolPost(s.hooks.postToolUse, { ...original, output: out }, s.hookTimeoutMs, signal, hookErrors)
    return { output: post.output, context: post.context }
  }
  const ctx: ToolContext = { orchestrator: s.orchestrator, signal, callId: call.callId, tool: call.name, step, postToolUse }
  let output: ToolOutput
  const work = (tool.handler as NonNullable<Tool['handler']>)(pre.input, ctx)
  try {
    const got = await untilAbandoned(work, signal, s.abortGraceMs)
    if (got === ABANDONED) {
      // Observed to its end (a late rejection is nobody's to handle); the lock waits for it.
      hold(work.then(noop, noop))
      const gaveUp = { kind: 'aborted', text: `aborted: the call was canceled; its handler did not stop within ${s.abortGraceMs} ms and was left to finish on its own` } as const
      s.emit(() => ({ type: 'end', callId: call.callId, tool: name, stepId: step.id, output: 'aborted', success: false, durationMs: Date.now() - started, outputPreview: shownPreview(gaveUp.text, s.previewBytes) }))
      return done(gaveUp)
    }
    output = got
  } catch (e) {
    s.emit(() => ({ type: 'end', callId: call.callId, tool: name, stepId: step.id, output: 'error', success: false, durationMs: Date.now() - started, outputPreview: shownPreview(String((e as Error)?.message ?? e), s.previewBytes) }))
    throw e
  }
  let context: string[] = []
  if (signal.aborted) output = aborted(output)
  else if (tool.hooks?.post !== false) {
    const post = await runToolPost(s.hooks.postToolUse, { tool: call.name, callId: call.callId, input: pre.input, output }, s.hookTimeoutMs, signal, hookErrors)
    output = signal.aborted ? aborted(post.output) : post.output
    context = post.context
  }
  const bounded = bound(output, s.maxOutputBytes)
  s.emit(() => ({ type: 'end', callId: call.callId, tool: name, stepId: step.id, output: bounded.kind, success: bounded.kind === 'text' ? bounded.success : bounded.kind === 'search', durationMs: Date.now() - started, outputPreview: shownPreview(previewText(bounded), s.previewBytes) }))
  return done(bounded, context)
}

const ABANDONED = Symbol('abandoned')
const noop = () => {}

/**
 * The handler's output — but once `signal` has aborted, waited for at most
 * `graceMs` more: a handler that stops what it started (its processes
 * reaped) and returns in that time gives its own, partial output; one that
 * ignores the abort is ABANDONED, and the call does not hang on it.
 */
function untilAbandoned<T>(work: Promise<T>, signal: AbortSignal, graceMs: number): Promise<T | typeof ABANDONED> {
  return new Promise((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined
    const onAbort = () => void (timer = setTimeout(() => resolve(ABANDONED), graceMs))
    if (signal.aborted) onAbort()
    else signal.addEventListener('abort', onAbort, { once: true })
    void work.then(resolve, reject).finally(() => {
      clearTimeout(timer)
      signal.removeEventListener('abort', onAbort)
    })
  })
}

/** The tool names a search output lists (a namespace entry lists its tools). */
function toolNames(specs: readonly ModelToolSpec[]): ToolName[] {
  return specs.flatMap((s) => (s.kind === 'namespace' ? s.tools.map((t) => ({ namespace: s.name, name: t.name })) : [{ name: s.name }]))
}

/** The tool a call names in its step: a tool search goes to the step's search tool. */
function resolveTool(step: Step, call: ToolCall): Tool | undefined {
  if (call.payload.kind === 'tool_search') return step.registry.registered().find((t) => t.spec.kind === 'tool_search')
  return step.registry.get(call.name)
}

function aborted(partial: ToolOutput | undefined): ToolOutput {
  const text = partial && partial.kind === 'text' && partial.text ? `\n${partial.text}` : ''
  return { kind: 'aborted', text: `aborted: the call was canceled before it finished${text}` }
}

/** The model-context bound on text outputs (truncate.ts). */
function bound(output: ToolOutput, maxBytes: number): ToolOutput {
  if (output.kind === 'search') return output
  const t = truncateForModel(output.text, maxBytes)
  return t.omittedBytes === 0 ? output : { ...output, text: t.text }
}

/** A lifecycle preview: the model's text (or the tool's output) with control and bidi characters escaped (a UI or a log prints it), then cut to `bytes`. */
function shownPreview(text: string, bytes: number): string {
  return preview(escaped(text, bytes), bytes)
}

function previewText(v: unknown): string {
  if (typeof v === 'string') return v
  if (v && typeof v === 'object' && 'kind' in v) {
    const o = v as ToolOutput
    return o.kind === 'search' ? `${o.tools.length} tools found` : o.text
  }
  try {
    return JSON.stringify(v) ?? ''
  } catch {
    return String(v)
  }
}
