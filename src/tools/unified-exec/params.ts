/**
 * What the model sends to exec_command and write_stdin, validated with zod;
 * the JSON Schema the model is shown is generated from the same schemas,
 * so the spec and the validation cannot drift. Numbers outside their
 * bounds are clamped (limits.ts), not refused: the model asked for a
 * window, it gets the nearest sane one and is told which.
 */
import { z } from 'zod'

const size = {
  rows: z.number().int().min(1).max(0xffff).optional().describe('Terminal rows (with tty; default 24).'),
  cols: z.number().int().min(1).max(0xffff).optional().describe('Terminal columns (with tty; default 80).'),
}

export const execCommandParams = z
  .object({
    cmd: z.string().min(1).describe('The shell command to run (/bin/sh -c).'),
    workdir: z.string().min(1).optional().describe('Directory to run in, relative to the workspace (default: the workspace).'),
    tty: z.boolean().optional().describe('Run on a terminal of its own, so write_stdin can type into it (default: false: stdin is closed).'),
    yield_time_ms: z.number().optional().describe('How long to wait for output before returning a session id (default 250, 0..30000).'),
    max_output_bytes: z.number().optional().describe('Output returned per call, head and tail kept (default 15360, 1024..1048576).'),
    timeout_ms: z.number().int().positive().optional().describe('Kill the command and everything it started after this many ms (at most 2147483647, about 24.8 days).'),
    sandbox_permissions: z.enum(['use_default', 'require_escalated']).optional().describe('require_escalated: ask to run outside the sandbox.'),
    justification: z.string().optional().describe('Why an escalation is needed (shown to the approver).'),
    ...size,
  })
  .strict()

export const writeStdinParams = z
  .object({
    session_id: z.number().int().describe('The session id exec_command returned.'),
    chars: z.string().default('').describe('Keys to type (e.g. "ls\\n", "\\u0003" for ^C, "\\u0004" for ^D); empty: just poll for output.'),
    yield_time_ms: z.number().optional().describe('How long to wait for output (default 250 with chars, 5000 for a poll; at most 30000 with chars, 300000 for a poll).'),
    max_output_bytes: z.number().optional().describe('Output returned, head and tail kept (default 15360, 1024..1048576).'),
    ...size,
  })
  .strict()

export type ExecCommandParams = z.output<typeof execCommandParams>
export type WriteStdinParams = z.output<typeof writeStdinParams>

/** The model-visible JSON Schema of a parameter schema. */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>
  return rest
}
