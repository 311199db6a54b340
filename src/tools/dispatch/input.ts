/**
 * What a call's handler gets, checked before it gets it. The model writes
 * the payload and a hook may rewrite it, so:
 * - a payload over `maxBytes` is refused before it is parsed (a bound on
 *   memory and time; default 8 MiB, as an apply_patch patch);
 * - function arguments nested deeper than MAX_DEPTH are refused: V8
 *   parses any depth, but JSON.stringify of the result — in a handler
 *   forwarding its arguments (an MCP bridge), a hook runner, a log —
 *   throws a RangeError, which would abort every call of the response;
 * - a PreToolUse rewrite must keep the tool's kind of input (a JSON object
 *   for a function tool, text for a freeform one, a query for tool search):
 *   a handler never receives a shape it was not written for.
 * Each refusal is a message for the model (or the `blocked:` reason).
 */
import type { ToolCall, ToolPayload } from '../types.js'

/** Default bound on one call's payload (bytes of UTF-8). */
export const DEFAULT_MAX_INPUT_BYTES = 8 * 1024 * 1024
/** Deepest nesting of objects and arrays accepted in function arguments. */
export const MAX_DEPTH = 64

/** The parsed input, or why the call cannot have it. */
export function inputOf(call: ToolCall, maxBytes: number): { input: unknown } | { error: string } {
  const p = call.payload
  const raw = p.kind === 'function' ? p.arguments : p.kind === 'custom' ? p.input : p.query
  const bytes = typeof raw === 'string' ? Buffer.byteLength(raw, 'utf8') : 0
  if (bytes > maxBytes) return { error: `the input is ${bytes} bytes, more than the ${maxBytes} this dispatcher takes` }
  // A provider (or a host building items by hand) may hand anything: the handler gets the kind it was written for.
  if (p.kind === 'custom') return typeof p.input === 'string' ? { input: p.input } : { error: 'the input must be text' }
  if (p.kind === 'tool_search') return typeof p.query === 'string' ? { input: { query: p.query, ...(p.limit !== undefined ? { limit: p.limit } : {}) } } : { error: 'the query must be text' }
  if (typeof p.arguments !== 'string') return { error: 'the arguments must be a JSON object' }
  if (depthOf(p.arguments) > MAX_DEPTH) return { error: `the arguments are nested deeper than ${MAX_DEPTH} levels` }
  try {
    const v: unknown = JSON.parse(p.arguments === '' ? '{}' : p.arguments)
    return isObject(v) ? { input: v } : { error: 'the arguments must be a JSON object' }
  } catch (e) {
    return { error: `the arguments are not valid JSON: ${(e as Error).message}` }
  }
}

/** Why a PreToolUse hook's rewrite does not fit a tool taking `kind` payloads (undefined: it fits). */
export function rewriteMisfit(kind: ToolPayload['kind'], input: unknown, tool: string): string | undefined {
  const fits = kind === 'function' ? isObject(input) : kind === 'custom' ? typeof input === 'string' : isObject(input) && typeof input.query === 'string'
  if (fits) return undefined
  const got = typeof input === 'string' ? 'a string' : Array.isArray(input) ? 'an array' : input === null ? 'null' : typeof input === 'object' ? 'an object' : typeof input
  const wants = kind === 'function' ? 'a JSON object' : kind === 'custom' ? 'text' : 'a search query'
  return `a PreToolUse hook rewrote the input into ${got}, and ${tool} takes ${wants}`
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

/** The deepest nesting of `{`/`[` in a JSON text, strings skipped (a linear scan, stops past MAX_DEPTH). */
function depthOf(json: string): number {
  let depth = 0
  let inString = false
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_DEPTH) return depth
    } else if (c === 0x7d || c === 0x5d) depth--
  }
  return depth
}
