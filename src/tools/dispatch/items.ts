/**
 * The conversation items dispatch reads and writes, in the shape of the
 * Responses API. Only a COMPLETED item becomes a call: an item still
 * streaming (`in_progress`) or cut off (`incomplete`) carries arguments
 * that may be partial, and running them would run something the model
 * did not finish saying.
 */
import type { ToolCall, ToolOutput } from '../types.js'

type Status = 'completed' | 'in_progress' | 'incomplete'

export type CallItem =
  | { readonly type: 'function_call'; readonly call_id: string; readonly name: string; readonly namespace?: string; readonly arguments: string; readonly status?: Status }
  | { readonly type: 'custom_tool_call'; readonly call_id: string; readonly name: string; readonly namespace?: string; readonly input: string; readonly status?: Status }
  | { readonly type: 'tool_search_call'; readonly call_id: string; readonly query: string; readonly limit?: number; readonly status?: Status }

/** Anything else the model produces (a message, reasoning): appended to history as it is. */
export interface OtherItem {
  readonly type: string
  readonly status?: Status
  readonly [field: string]: unknown
}

export type ResponseItem = CallItem | OtherItem

/** The output paired with a call, by its call id; `context` holds what PostToolUse hooks added. */
export interface OutputItem {
  readonly type: 'function_call_output' | 'custom_tool_call_output' | 'tool_search_output'
  readonly call_id: string
  readonly output: ToolOutput
  readonly context?: readonly string[]
}

export type HistoryItem = ResponseItem | OutputItem

const CALL_TYPES = new Set(['function_call', 'custom_tool_call', 'tool_search_call'])

export function isCallItem(item: ResponseItem): item is CallItem {
  return CALL_TYPES.has(item.type)
}

/**
 * The call a completed item is; undefined for an item that is not a call.
 * A call item that is not completed is `'incomplete'` (never run).
 */
export function callOf(item: ResponseItem): ToolCall | 'incomplete' | undefined {
  if (!isCallItem(item)) return undefined
  if (item.status !== undefined && item.status !== 'completed') return 'incomplete'
  if (item.type === 'tool_search_call') {
    return { callId: item.call_id, name: { name: 'tool_search' }, payload: { kind: 'tool_search', query: item.query, ...(item.limit !== undefined ? { limit: item.limit } : {}) } }
  }
  const name = item.namespace !== undefined ? { namespace: item.namespace, name: item.name } : { name: item.name }
  if (item.type === 'function_call') return { callId: item.call_id, name, payload: { kind: 'function', arguments: item.arguments } }
  return { callId: item.call_id, name, payload: { kind: 'custom', input: item.input } }
}

export function outputItemType(call: ToolCall): OutputItem['type'] {
  if (call.payload.kind === 'function') return 'function_call_output'
  if (call.payload.kind === 'custom') return 'custom_tool_call_output'
  return 'tool_search_output'
}
