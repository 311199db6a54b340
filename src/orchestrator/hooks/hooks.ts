/**
 * Hooks around an exec, in-process functions or external commands:
 * - PreToolUse: may allow (no prompt; a forbidden command stays forbidden),
 *   block with a reason returned to the caller, or rewrite the command
 *   (which is then decided afresh). Fail closed: a hook that errors or times
 *   out blocks.
 * - PermissionRequest: allow / deny / no decision, before the reviewer or
 *   user is asked. A failing hook gives no decision (someone else is asked).
 * - PostToolUse: add context or replace the result shown to the caller. It
 *   runs after the command: it cannot undo anything that ran. A failing
 *   hook is recorded and otherwise ignored.
 */
import type { ApprovalRequest } from '../approval/approval.js'
import { runHookCommand, type HookCommand } from './hook-command.js'
import { parseHookOutput, type HookOutput } from './hook-output.js'
import type { SandboxPermissions } from '../approval/requirement.js'

export interface PreToolUseInput {
  readonly event: 'PreToolUse'
  readonly command: readonly string[]
  readonly cwd: string
  readonly sandboxPermissions: SandboxPermissions
  readonly justification?: string
}
export interface PreToolUseResult {
  readonly decision?: 'allow' | 'block'
  readonly reason?: string
  /** Replace the command (argv) before it is decided. */
  readonly updatedCommand?: readonly string[]
}

export interface PermissionRequestInput {
  readonly event: 'PermissionRequest'
  readonly request: ApprovalRequest
}
export interface PermissionRequestResult {
  readonly decision?: 'allow' | 'deny'
  readonly reason?: string
}

export interface ShownResult {
  readonly exitCode: number | null
  readonly signal: string | null
  readonly stdout: string
  readonly stderr: string
}
export interface PostToolUseInput {
  readonly event: 'PostToolUse'
  readonly command: readonly string[]
  readonly cwd: string
  readonly result: ShownResult
  /** The tool call the result answers (when the caller named one): for a process that outlived its call, the call that started it. */
  readonly callId?: string
}
export interface PostToolUseResult {
  readonly additionalContext?: string
  /** Fields replacing what the caller is shown. The attempts keep the real result. */
  readonly replaceResult?: Partial<ShownResult>
}

type Fn<I, O> = (input: I, context: { signal: AbortSignal }) => O | undefined | void | Promise<O | undefined | void>
export type Hook<I, O> = Fn<I, O> | HookCommand

export interface Hooks {
  readonly preToolUse?: readonly Hook<PreToolUseInput, PreToolUseResult>[]
  readonly permissionRequest?: readonly Hook<PermissionRequestInput, PermissionRequestResult>[]
  readonly postToolUse?: readonly Hook<PostToolUseInput, PostToolUseResult>[]
}

export interface HookRun<O> {
  readonly output?: O
  /** Set when the hook failed (threw, timed out, exited with an error, printed bad JSON). */
  readonly error?: string
}

/** Run one hook of any kind, with a timeout for both kinds. */
export async function runHook<I extends { event: string }, O>(
  hook: Hook<I, O>,
  input: I,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<HookRun<O>> {
  if (typeof hook === 'function') return runFunction(hook, input, timeoutMs, signal)
  const tool = isToolEvent(input)
  const r = await runHookCommand(hook, tool ? toolWire(input) : toWire(input), hook.timeoutMs ?? timeoutMs, signal)
  if (!r.ok) return { error: r.error }
  const parsed = parseHookOutput(input.event, r.exitCode, r.stdout, r.stderr)
  if ('error' in parsed) return { error: parsed.error }
  return { output: (tool ? fromToolWire(input.event, parsed) : fromWire(input.event, parsed)) as O }
}

async function runFunction<I, O>(fn: Fn<I, O>, input: I, timeoutMs: number, signal: AbortSignal): Promise<HookRun<O>> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<HookRun<O>>((resolve) => {
    timer = setTimeout(() => resolve({ error: `timed out after ${timeoutMs} ms` }), timeoutMs)
  })
  const run = (async (): Promise<HookRun<O>> => {
    try {
      const out = await fn(input, { signal })
      return out ? { output: out } : {}
    } catch (e) {
      return { error: `hook threw: ${(e as Error)?.message ?? String(e)}` }
    }
  })()
  try {
    return await Promise.race([run, timeout])
  } finally {
    clearTimeout(timer)
  }
}

/** The JSON written to an external hook's stdin. */
function toWire(input: { event: string }): Record<string, unknown> {
  const base = { hook_event_name: input.event, tool_name: 'exec' }
  if (input.event === 'PermissionRequest') {
    const { request } = input as PermissionRequestInput
    return { ...base, cwd: request.cwd, tool_input: { command: request.command, cwd: request.cwd }, permission_request: request }
  }
  const i = input as PreToolUseInput | PostToolUseInput
  const toolInput = {
    command: i.command,
    cwd: i.cwd,
    ...('sandboxPermissions' in i ? { sandbox_permissions: i.sandboxPermissions, justification: i.justification } : {}),
  }
  return { ...base, cwd: i.cwd, tool_input: toolInput, ...('result' in i ? { tool_response: i.result } : {}) }
}

function fromWire(event: string, out: HookOutput): PreToolUseResult | PermissionRequestResult | PostToolUseResult {
  if (event === 'PostToolUse') {
    return { ...(out.additionalContext !== undefined ? { additionalContext: out.additionalContext } : {}), ...(out.replaceResult ? { replaceResult: out.replaceResult } : {}) }
  }
  const reason = out.reason !== undefined ? { reason: out.reason } : {}
  if (event === 'PermissionRequest') return { ...(out.verdict ? { decision: out.verdict === 'allow' ? 'allow' : 'deny' } : {}), ...reason }
  return {
    ...(out.verdict ? { decision: out.verdict === 'allow' ? 'allow' : 'block' } : {}),
    ...reason,
    ...(out.updatedCommand ? { updatedCommand: out.updatedCommand } : {}),
  }
}

/**
 * A tool-level event (src/tools/dispatch): any tool, not only a command.
 * It carries the tool's name and call id and the tool's own input.
 */
interface ToolEvent {
  readonly event: string
  readonly tool: { readonly namespace?: string; readonly name: string }
  readonly callId: string
  readonly input: unknown
  readonly output?: unknown
}

function isToolEvent(input: { event: string }): input is ToolEvent {
  return 'tool' in input && 'callId' in input
}

/** The JSON an external hook gets for a tool-level event. */
function toolWire(i: ToolEvent): Record<string, unknown> {
  const name = i.tool.namespace !== undefined ? `${i.tool.namespace}/${i.tool.name}` : i.tool.name
  return { hook_event_name: i.event, tool_name: name, tool_use_id: i.callId, tool_input: i.input, ...(i.output !== undefined ? { tool_response: i.output } : {}) }
}

/** A tool-level hook's answer: PreToolUse block / rewrite (`updatedInput`); PostToolUse context / replace (`replaceResult.stdout`) / block. */
function fromToolWire(event: string, out: HookOutput): Record<string, unknown> {
  const reason = out.reason !== undefined ? { reason: out.reason } : {}
  const block = out.verdict === 'deny' ? { decision: 'block' } : {}
  if (event === 'PostToolUse') {
    return { ...block, ...reason, ...(out.additionalContext !== undefined ? { additionalContext: out.additionalContext } : {}), ...(out.replaceResult?.stdout !== undefined ? { replaceOutput: out.replaceResult.stdout } : {}) }
  }
  return { ...block, ...reason, ...(out.updatedInput !== undefined ? { updatedInput: out.updatedInput } : {}) }
}
