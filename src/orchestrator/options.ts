/**
 * createOrchestrator() options and exec() requests, validated with zod at
 * the boundary. Functions (callbacks, in-process hooks) are checked for
 * being functions only; what they return is validated where it is used.
 */
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import { z } from 'zod'
import { approvalModeSchema, promptClassSchema } from './approval/approval-mode.js'
import type { OutputListener } from './output.js'
import { MAX_TIMEOUT_MS, TIMEOUT_TOO_LONG } from '../sandbox/options.js'

/** A timer's length (ms): past MAX_TIMEOUT_MS Node's setTimeout fires after 1 ms, so a longer one is refused. */
const timerMs = z.number().int().positive().max(MAX_TIMEOUT_MS, TIMEOUT_TOO_LONG)
const fn = z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', 'expected a function')
const hookCommand = z
  .object({
    command: z.array(z.string().min(1)).min(1),
    timeoutMs: timerMs.optional(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().min(1).optional(),
  })
  .strict()
const hook = z.union([fn, hookCommand])
const outputListener = z.custom<OutputListener>((v) => typeof v === 'function', 'expected a function')

export const orchestratorOptionsSchema = z
  .object({
    /** createSandbox() options of the first attempt (profile, cwd, …). Default: workspace-write in process.cwd(). */
    sandbox: z.record(z.string(), z.unknown()).default({}),
    /** Rules files (Codex `.rules` syntax), merged in order. `~/` expands. */
    rules: z.array(z.string().min(1)).default([]),
    /** Where "always allow" amendments are written. Default: the last `rules` file. */
    amendRules: z.string().min(1).optional(),
    approvalMode: approvalModeSchema.default('on-request'),
    /** Granular switches: prompt classes refused without asking. */
    reject: z.array(promptClassSchema).default([]),
    onApproval: fn.optional(),
    /** Strict automatic review: this callback answers instead of onApproval, and re-approves every wider attempt. */
    reviewer: fn.optional(),
    strictReview: z.boolean().optional(),
    hooks: z
      .object({ preToolUse: z.array(hook).optional(), permissionRequest: z.array(hook).optional(), postToolUse: z.array(hook).optional() })
      .strict()
      .default({}),
    hookTimeoutMs: timerMs.default(10_000),
    approvalTimeoutMs: timerMs.optional(),
    /** Offer a wider second attempt after a sandbox denial (the tool allows escalation). */
    escalateOnFailure: z.boolean().default(true),
    /** Codex semantics: a command a rule allows runs without the profile sandbox (read masks still kept). */
    allowMeansNoSandbox: z.boolean().default(false),
    /** Let an approved "no sandbox" request run unconfined when the profile denies no read at all. */
    allowUnsandboxed: z.boolean().default(false),
    /** Injection point for tests and embedders: how a sandbox is made from options. */
    createSandbox: fn.optional(),
  })
  .strict()

export type OrchestratorOptionsParsed = z.output<typeof orchestratorOptionsSchema>

export const execRequestSchema = z
  .object({
    command: z.array(z.string().refine((s) => !s.includes('\0'), 'argument contains a NUL byte')).min(1, 'empty command'),
    /** Where the command runs. Default: the sandbox cwd (the workspace). Does not move the workspace. */
    cwd: z.string().min(1).optional(),
    sandboxPermissions: z.enum(['use_default', 'require_escalated']).default('use_default'),
    justification: z.string().optional(),
    signal: z.instanceof(AbortSignal).optional(),
    timeout: timerMs.optional(),
    input: z.string().optional(),
    env: z.record(z.string(), z.string()).optional(),
    /** Called with each chunk of output as it arrives: `{ attempt, stream, chunk, raw }`. Not awaited. */
    onOutput: outputListener.optional(),
    /** Bytes of stdout, and of stderr, kept in the result (default 64 MiB, the sandbox's own bound); see `keep`. */
    maxBuffer: z.number().int().positive().optional(),
    /** Which part of an output longer than maxBuffer is kept: the start, the end, or half of each (default). */
    keep: z.enum(['head', 'tail', 'head-tail']).default('head-tail'),
    /** Per request: whether this tool allows a wider retry (default: the orchestrator's escalateOnFailure). */
    escalateOnFailure: z.boolean().optional(),
  })
  .strict()

export type ExecRequest = z.input<typeof execRequestSchema>
export type ExecRequestParsed = z.output<typeof execRequestSchema>

export function expandHome(p: string): string {
  if (p === '~') return homedir()
  return p.startsWith('~/') ? join(homedir(), p.slice(2)) : resolve(p)
}
