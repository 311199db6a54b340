/**
 * The tool layer's vocabulary. A tool is ONE object that carries both of
 * its faces — the spec the model sees and the handler that runs its calls
 * — so the two cannot drift apart. Names are `{ namespace?, name }`: an MCP
 * server's `mcp__calendar/create_event` never collides with a local
 * `create_event`.
 */
import type { Orchestrator } from '../orchestrator/orchestrator.js'
import type { Step } from './router.js'

/** A tool's name; `namespace` groups tools (an MCP server's). */
export interface ToolName {
  readonly namespace?: string
  readonly name: string
}

/**
 * Who sees a tool, and who may call it:
 * - `direct`: in the model's initial list; callable;
 * - `deferred`: registered and callable, but shown to the model only when
 *   a tool search finds it (keeps large tool sets out of the context);
 * - `direct-model-only`: in the model's list and callable by the model,
 *   never by the host's direct dispatch (`Dispatcher.invoke`);
 * - `hidden`: never shown to the model; callable (the host's own tools,
 *   or calls replayed from history).
 */
export type Exposure = 'direct' | 'deferred' | 'direct-model-only' | 'hidden'

/** A JSON Schema object (draft 2020-12 subset the providers accept). */
export type JsonSchema = Readonly<Record<string, unknown>>

/** A function tool: the model sends a JSON object matching `parameters`. */
export interface FunctionSpec {
  readonly kind: 'function'
  readonly description: string
  readonly parameters: JsonSchema
  /** Ask the provider to enforce `parameters` exactly (structured outputs). */
  readonly strict?: boolean
}

/** A freeform tool: the model sends raw text in a custom grammar (apply_patch). */
export interface FreeformSpec {
  readonly kind: 'freeform'
  readonly description: string
  readonly format: { readonly type: 'grammar'; readonly syntax: 'lark' | 'regex'; readonly definition: string } | { readonly type: 'text' }
}

/** The client-side tool search: the model sends a query, gets the specs of deferred tools that match. */
export interface ToolSearchSpec {
  readonly kind: 'tool_search'
  readonly description: string
}

/** A tool the model provider runs itself (web search, …): spec only, never dispatched here. */
export interface HostedSpec {
  readonly kind: 'hosted'
  /** The provider's tool type (`web_search`, …) and its settings, passed through. */
  readonly type: string
  readonly config?: Readonly<Record<string, unknown>>
}

export type ToolSpec = FunctionSpec | FreeformSpec | ToolSearchSpec | HostedSpec

/**
 * What the model is shown: one entry per visible tool, tools of a
 * namespace grouped under it (`namespace`).
 */
export type ModelToolSpec =
  | ({ readonly name: string } & (FunctionSpec | FreeformSpec | ToolSearchSpec | HostedSpec))
  | { readonly kind: 'namespace'; readonly name: string; readonly description: string; readonly tools: readonly ({ readonly name: string } & ToolSpec)[] }

/** The payload of one call, by kind: what the model sent. */
export type ToolPayload =
  /** A function call: `arguments` is the model's JSON text, parsed by dispatch. */
  | { readonly kind: 'function'; readonly arguments: string }
  /** A custom (freeform) call: raw text. */
  | { readonly kind: 'custom'; readonly input: string }
  /** A client tool search. */
  | { readonly kind: 'tool_search'; readonly query: string; readonly limit?: number }

/** The payload kind a spec kind takes. */
export const PAYLOAD_OF: Readonly<Record<Exclude<ToolSpec['kind'], 'hosted'>, ToolPayload['kind']>> = {
  function: 'function',
  freeform: 'custom',
  tool_search: 'tool_search',
}

export interface ToolCall {
  /** The provider's call id: the output item pairs with it. */
  readonly callId: string
  readonly name: ToolName
  readonly payload: ToolPayload
}

/**
 * What the model reads back. A tool's failure (non-zero exit, a sandbox
 * denial, a refused approval) is a `text` output with `success: false` —
 * the model may try something else — never a thrown error.
 * - `unsupported`: no tool of that name (the model can correct itself);
 * - `aborted`: the call was canceled (its processes were stopped first);
 * - `search`: a tool search's result, the specs of the tools found.
 */
export type ToolOutput =
  | { readonly kind: 'text'; readonly text: string; readonly success: boolean }
  | { readonly kind: 'unsupported'; readonly text: string }
  | { readonly kind: 'aborted'; readonly text: string }
  | { readonly kind: 'search'; readonly tools: readonly ModelToolSpec[] }

/** A read-only view of the step a call was produced under (router.ts). */
export interface StepView {
  readonly id: number
  /** The specs the model was shown in that step. */
  readonly specs: readonly ModelToolSpec[]
}

/** What a handler gets besides its input. */
export interface ToolContext {
  /** The orchestrator: a handler that runs anything runs it through `orchestrator.run(runtime, request)`. */
  readonly orchestrator: Orchestrator
  /** This call's own signal (a child of the step's): stop and reap every process it started, then return. */
  readonly signal: AbortSignal
  readonly callId: string
  readonly tool: ToolName
  /** The step the call was produced under: its specs and registry (the tool search reads its deferred tools). */
  readonly step: Step
  /**
   * Run the dispatcher's PostToolUse hooks for another call — for a tool
   * whose result belongs to an earlier call (write_stdin finishing what an
   * exec_command call started pairs its PostToolUse with that call's id,
   * tool and input). Returns the output the model reads and added context.
   */
  readonly postToolUse: (original: { readonly callId: string; readonly tool: ToolName; readonly input: unknown }, output: ToolOutput) => Promise<{ output: ToolOutput; context: readonly string[] }>
}

/** The input a handler receives: the parsed JSON object (function), the raw text (custom), the query (search). */
export type ToolInput = unknown

export type ToolHandler = (input: ToolInput, context: ToolContext) => Promise<ToolOutput>

/** One tool: both faces. A hosted tool has no handler (the provider runs it). */
export interface Tool {
  readonly name: ToolName
  readonly spec: ToolSpec
  readonly exposure: Exposure
  /** Calls may run concurrently with other parallel calls (a shared read lock); false takes the write lock. */
  readonly parallel: boolean
  readonly handler?: ToolHandler
  /** Extra words a tool search matches on (besides the name and description). */
  readonly keywords?: readonly string[]
  /**
   * Which dispatcher hooks run around this tool's calls (default: both).
   * `pre: false` for a tool that continues an already-approved call
   * (write_stdin); `post: false` when its PostToolUse runs later through
   * `ctx.postToolUse` with the original call.
   */
  readonly hooks?: { readonly pre?: boolean; readonly post?: boolean }
}
