/**
 * Dispatch: a model response's items in, outputs out, in call order.
 *
 * - Only a completed item becomes a call (items.ts); the call item is
 *   appended to history BEFORE its execution starts, and its output after,
 *   each output paired by call id and appended in CALL order whatever
 *   order the calls finish in.
 * - A call runs with the tools of the step it was produced under (the
 *   `step` argument, router.ts), whatever steps were built since.
 * - Unknown tool → an `unsupported` output the model can read and correct;
 *   a known tool given the wrong payload kind → ToolContractError (a broken
 *   contract, not a tool failure); a tool's own failure (non-zero exit, a
 *   denial, a refused approval) is a `text` output with `success: false`.
 * - Per call: PreToolUse hooks → lifecycle start → handler → PostToolUse
 *   hooks → lifecycle end (call.ts). Parallel tools share a read lock,
 *   the others take the write lock (rw-lock.ts).
 * - Cancellation: each call has a child signal of the response's; an
 *   aborted call's output is `aborted`, after its handler has stopped what
 *   it started — or, for a handler that ignores its signal, once
 *   `abortGraceMs` has passed (it finishes on its own, observed). A call that cannot run at all (ToolSetupError,
 *   ToolContractError) aborts the response's other calls; every call still
 *   gets its output in history (never a dangling call), then the error
 *   is thrown.
 */
import { AbortError } from '../../errors.js'
import type { Orchestrator } from '../../orchestrator/orchestrator.js'
import { callOf, outputItemType, type CallItem, type HistoryItem, type OutputItem, type ResponseItem } from './items.js'
import { executeCall, NEVER, type CallSettings, type Settled, type ToolEvent } from './call.js'
import type { ToolHooks } from './tool-hooks.js'
import { RwLock } from './rw-lock.js'
import { DEFAULT_MAX_INPUT_BYTES } from './input.js'
import { DEFAULT_MODEL_OUTPUT_BYTES, DEFAULT_PREVIEW_BYTES } from './truncate.js'
import type { Step } from '../router.js'
import type { ToolCall, ToolOutput } from '../types.js'

const DEFAULT_ABORT_GRACE_MS = 1000

export interface DispatcherOptions {
  readonly orchestrator: Orchestrator
  /** Hooks around every tool call (tool-hooks.ts). */
  readonly hooks?: ToolHooks
  /** Default 10 s, as the orchestrator's. */
  readonly hookTimeoutMs?: number
  /** Bytes of one output in the model's context (head and tail kept). Default 16 KiB. */
  readonly maxOutputBytes?: number
  /** Bytes of the previews in lifecycle events. Default 1 KiB. */
  readonly previewBytes?: number
  /** Bytes of one call's payload (arguments, freeform text, query); a larger one is a failure the model reads. Default 8 MiB. */
  readonly maxInputBytes?: number
  /** Lifecycle events (start, end) for telemetry and UIs. Not awaited; a throw is ignored. */
  readonly onEvent?: (event: ToolEvent) => void
  /**
   * After an abort, how long a call waits for its handler to stop what it
   * started and return (ms). A handler still running then — one that
   * ignores its signal — is left to finish on its own (it keeps the tool
   * lock until it does); the call's output is `aborted` at once. Default 1000.
   */
  readonly abortGraceMs?: number
  /** The conversation so far: dispatch appends to it. Default: a new, empty one. */
  readonly history?: HistoryItem[]
}

export interface ResponseResult {
  /** The outputs appended, in call order. */
  readonly outputs: readonly OutputItem[]
  /** Call items that were not completed: not run, not appended. */
  readonly incomplete: readonly CallItem[]
  /** The response's signal aborted (every call still has an output). */
  readonly aborted: boolean
  /** Hooks that failed or timed out. */
  readonly hookErrors: readonly string[]
}

export class Dispatcher {
  readonly history: HistoryItem[]
  private readonly lock = new RwLock()
  private readonly settings: CallSettings

  constructor(options: DispatcherOptions) {
    this.history = options.history ?? []
    this.settings = {
      orchestrator: options.orchestrator,
      hooks: options.hooks ?? {},
      hookTimeoutMs: options.hookTimeoutMs ?? 10_000,
      maxOutputBytes: options.maxOutputBytes ?? DEFAULT_MODEL_OUTPUT_BYTES,
      previewBytes: options.previewBytes ?? DEFAULT_PREVIEW_BYTES,
      maxInputBytes: options.maxInputBytes ?? DEFAULT_MAX_INPUT_BYTES,
      abortGraceMs: options.abortGraceMs ?? DEFAULT_ABORT_GRACE_MS,
      emit: (event) => {
        if (!options.onEvent) return // no listener: no event (and no previews) built
        try {
          options.onEvent(event())
        } catch {
          // A listener's failure (or a preview's) is not the call's.
        }
      },
      lock: this.lock,
    }
  }

  /**
   * Handle one response produced under `step`: its items may be a list or
   * a stream (each call starts as soon as its item is complete). Resolves
   * when every call has its output in history; rejects with the first
   * ToolContractError / ToolSetupError after that.
   */
  async handleResponse(step: Step, items: Iterable<ResponseItem> | AsyncIterable<ResponseItem>, signal?: AbortSignal): Promise<ResponseResult> {
    const group = new AbortController()
    const onAbort = () => group.abort(signal?.reason ?? new AbortError('the response was aborted'))
    if (signal?.aborted) onAbort()
    else signal?.addEventListener('abort', onAbort, { once: true })
    const pending: { call: ToolCall; settled: Promise<Settled> }[] = []
    const incomplete: CallItem[] = []
    const hookErrors: string[] = []
    let fatal: unknown
    try {
      for await (const item of items) {
        const call = callOf(item)
        if (call === 'incomplete') {
          incomplete.push(item as CallItem)
          continue
        }
        this.history.push(item)
        if (!call) continue
        const settled = executeCall(this.settings, step, call, group.signal, 'model', hookErrors).then((s) => {
          if (s.fatal !== undefined && fatal === undefined) {
            fatal = s.fatal
            group.abort(new AbortError('another call of this response could not run'))
          }
          return s
        })
        pending.push({ call, settled })
      }
      const outputs: OutputItem[] = []
      for (const { call, settled } of pending) {
        const s = await settled
        const item: OutputItem = { type: outputItemType(call), call_id: call.callId, output: s.output, ...(s.context.length ? { context: s.context } : {}) }
        this.history.push(item)
        outputs.push(item)
      }
      if (fatal !== undefined) throw fatal
      return { outputs, incomplete, aborted: signal?.aborted === true, hookErrors }
    } finally {
      signal?.removeEventListener('abort', onAbort)
    }
  }

  /**
   * The host calls a tool itself (not the model): nothing is appended to
   * history. A `direct-model-only` tool is not callable this way.
   */
  async invoke(step: Step, call: ToolCall, signal?: AbortSignal): Promise<{ output: ToolOutput; context: readonly string[] }> {
    const s = await executeCall(this.settings, step, call, signal ?? NEVER, 'host', [])
    if (s.fatal !== undefined) throw s.fatal
    return { output: s.output, context: s.context }
  }
}
