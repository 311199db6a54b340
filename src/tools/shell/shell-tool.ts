/**
 * The model-facing `shell` function tool: an argv, run through the
 * orchestrator (`run(shellRuntime, …)`: policy, approval, sandbox, at most
 * one wider retry). What happened is text the model reads: the exit code
 * and the output, or why it did not run (forbidden, blocked, denied by
 * the approver) — a result the model can act on, never an error. Only a
 * sandbox that cannot be set up at all is an error (ToolSetupError).
 */
import { z } from 'zod'
import { ToolSetupError } from '../../errors.js'
import { execRequestSchema } from '../../orchestrator/options.js'
import type { RunOutcome } from '../../orchestrator/runtime.js'
import type { AttemptResult } from '../../orchestrator/attempt.js'
import { describeDenial } from '../../orchestrator/escalation/escalation.js'
import type { Tool, ToolContext, ToolOutput } from '../types.js'
import { shellRuntime } from './shell-runtime.js'

const argsSchema = z
  .object({
    command: z.array(z.string()).min(1),
    workdir: z.string().min(1).optional(),
    timeout_ms: z.number().int().positive().optional(),
    sandbox_permissions: z.enum(['use_default', 'require_escalated']).optional(),
    justification: z.string().optional(),
  })
  .strict()

const parameters = {
  type: 'object',
  properties: {
    command: { type: 'array', items: { type: 'string' }, description: 'The command and its arguments (argv).' },
    workdir: { type: 'string', description: 'Directory to run in (default: the workspace).' },
    timeout_ms: { type: 'number', description: 'Stop the command after this many milliseconds.' },
    sandbox_permissions: { type: 'string', enum: ['use_default', 'require_escalated'], description: 'require_escalated: ask to run outside the sandbox.' },
    justification: { type: 'string', description: 'Why escalation is needed (shown to the approver).' },
  },
  required: ['command'],
  additionalProperties: false,
} as const

export function shellTool(options: { name?: string; description?: string } = {}): Tool {
  return {
    name: { name: options.name ?? 'shell' },
    spec: { kind: 'function', description: options.description ?? 'Run a command in the sandbox and return its exit code and output.', parameters },
    exposure: 'direct',
    parallel: false,
    handler: runShell,
  }
}

async function runShell(input: unknown, ctx: ToolContext): Promise<ToolOutput> {
  const args = argsSchema.safeParse(input)
  if (!args.success) return { kind: 'text', text: `bad arguments: ${args.error.issues[0]?.path.join('.') || '(root)'}: ${args.error.issues[0]?.message}`, success: false }
  const a = args.data
  const req = execRequestSchema.safeParse({
    command: a.command,
    ...(a.workdir ? { cwd: a.workdir } : {}),
    ...(a.timeout_ms ? { timeout: a.timeout_ms } : {}),
    ...(a.sandbox_permissions ? { sandboxPermissions: a.sandbox_permissions } : {}),
    ...(a.justification !== undefined ? { justification: a.justification } : {}),
  })
  if (!req.success) return { kind: 'text', text: `bad arguments: ${req.error.issues[0]?.message}`, success: false }
  const outcome = await ctx.orchestrator.run(shellRuntime, req.data, { signal: ctx.signal })
  return shownOutcome(outcome, ctx)
}

/** The outcome as the model reads it. */
export function shownOutcome(o: RunOutcome<AttemptResult>, ctx: Pick<ToolContext, 'tool'>): ToolOutput {
  if (o.status === 'error') {
    const err = o.attempts[o.attempts.length - 1]?.error ?? { name: 'Error', code: 'E_UNKNOWN', message: o.reason ?? 'the sandbox could not be set up' }
    throw new ToolSetupError(ctx.tool.name, err)
  }
  if (o.status === 'canceled') return { kind: 'aborted', text: `aborted: ${o.reason ?? 'canceled'}` }
  if (!o.result) return { kind: 'text', text: `not run (${o.status}): ${o.reason ?? ''}`.trimEnd(), success: false }
  const r = o.result
  const lines = [`exit code: ${r.exitCode ?? `none (signal ${r.signal ?? '?'})`}`]
  if (o.status === 'timed_out') lines.push(`timed out: ${o.reason}`)
  if (o.denials.length) lines.push(`sandbox denied: ${o.denials.map(describeDenial).join('; ')}`)
  if (o.escalation && !o.escalation.attempted && o.escalation.refused.length) lines.push(`no wider retry: ${o.escalation.refused.join('; ')}`)
  lines.push('output:', `${r.stdout}${r.stderr}`)
  return { kind: 'text', text: lines.join('\n'), success: o.status === 'completed' && r.exitCode === 0 }
}
