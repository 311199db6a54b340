/**
 * Reading an external hook's answer. Accepted shapes (those agent tools use):
 *   { "decision": "allow" | "approve" | "block" | "deny", "reason": "…" }
 *   { "hookSpecificOutput": { "permissionDecision": "allow" | "deny" | "ask",
 *       "permissionDecisionReason": "…", "updatedInput": { "command": [...] } } }
 *   { "hookSpecificOutput": { "decision": { "behavior": "allow" | "deny", "message": "…" } } }
 *   { "additionalContext": "…", "replaceResult": { "stdout": "…" } }   (PostToolUse)
 *   { "continue": false, "stopReason": "…" }                            (= deny)
 * Empty stdout with exit 0 is "no decision"; exit 2 is "deny" with stderr
 * as the reason; any other exit status or unreadable JSON is a hook error.
 */
import { z } from 'zod'

export interface HookOutput {
  readonly verdict?: 'allow' | 'deny'
  readonly reason?: string
  readonly updatedCommand?: readonly string[]
  /** The whole `updatedInput` object as given (a tool-level hook rewrites any tool's input, src/tools). */
  readonly updatedInput?: Readonly<Record<string, unknown>>
  readonly additionalContext?: string
  readonly replaceResult?: { stdout?: string; stderr?: string; exitCode?: number | null }
}

const verdictWord = z.enum(['allow', 'approve', 'block', 'deny', 'ask'])
const command = z.union([z.array(z.string()).min(1), z.string().min(1)])
const replace = z.object({ stdout: z.string().optional(), stderr: z.string().optional(), exitCode: z.number().int().nullable().optional() }).strict()
const specific = z
  .object({
    permissionDecision: verdictWord.optional(),
    permissionDecisionReason: z.string().optional(),
    decision: z.object({ behavior: z.enum(['allow', 'deny']), message: z.string().optional() }).passthrough().optional(),
    updatedInput: z.record(z.string(), z.unknown()).optional(),
    additionalContext: z.string().optional(),
    replaceResult: replace.optional(),
  })
  .passthrough()
const wire = z
  .object({
    decision: verdictWord.optional(),
    reason: z.string().optional(),
    continue: z.boolean().optional(),
    stopReason: z.string().optional(),
    updatedInput: z.record(z.string(), z.unknown()).optional(),
    additionalContext: z.string().optional(),
    replaceResult: replace.optional(),
    hookSpecificOutput: specific.optional(),
  })
  .passthrough()

export function parseHookOutput(event: string, exitCode: number, stdout: string, stderr: string): HookOutput | { error: string } {
  if (exitCode === 2) {
    const text = stderr.trim() || 'blocked by hook (exit status 2)'
    return event === 'PostToolUse' ? { additionalContext: text } : { verdict: 'deny', reason: text }
  }
  if (exitCode !== 0) return { error: `hook exited with status ${exitCode}${stderr.trim() ? `: ${stderr.trim().slice(0, 500)}` : ''}` }
  if (!stdout.trim()) return {}
  let json: unknown
  try {
    json = JSON.parse(stdout)
  } catch {
    return { error: 'hook printed something that is not JSON' }
  }
  const r = wire.safeParse(json)
  if (!r.success) return { error: `hook output: ${r.error.issues[0]?.path.join('.') || '(root)'}: ${r.error.issues[0]?.message}` }
  const ui = r.data.hookSpecificOutput?.updatedInput ?? r.data.updatedInput
  if (ui?.command !== undefined && !command.safeParse(ui.command).success) return { error: 'hook output: updatedInput.command: expected an argv or a command line' }
  return fromParsed(r.data)
}

function fromParsed(w: z.infer<typeof wire>): HookOutput {
  const s = w.hookSpecificOutput
  const word = s?.decision?.behavior ?? s?.permissionDecision ?? w.decision
  const verdict = w.continue === false ? 'deny' : word === 'allow' || word === 'approve' ? 'allow' : word === 'block' || word === 'deny' ? 'deny' : undefined
  const reason = w.stopReason ?? s?.decision?.message ?? s?.permissionDecisionReason ?? w.reason
  const updatedInput = s?.updatedInput ?? w.updatedInput
  const parsedCmd = command.safeParse(updatedInput?.command)
  const cmd = parsedCmd.success ? parsedCmd.data : undefined
  const additionalContext = s?.additionalContext ?? w.additionalContext
  const replaceResult = s?.replaceResult ?? w.replaceResult
  return {
    ...(verdict ? { verdict } : {}),
    ...(reason !== undefined ? { reason } : {}),
    // A string command is a shell line, as agent tools send it.
    ...(cmd ? { updatedCommand: typeof cmd === 'string' ? ['bash', '-lc', cmd] : cmd } : {}),
    ...(updatedInput !== undefined ? { updatedInput } : {}),
    ...(additionalContext !== undefined ? { additionalContext } : {}),
    ...(replaceResult ? { replaceResult } : {}),
  }
}
