/**
 * Running the PreToolUse and PostToolUse hook lists for one exec.
 */
import { z } from 'zod'
import type { SandboxResult } from '../../sandbox/result.js'
import { runHook, type Hooks, type PostToolUseInput, type PostToolUseResult, type PreToolUseInput, type PreToolUseResult } from './hooks.js'

export type PreToolUseVerdict =
  | { readonly kind: 'blocked'; readonly reason: string; readonly command: readonly string[] }
  | { readonly kind: 'continue'; readonly command: readonly string[]; readonly allowedBy?: string }

const argvSchema = z.array(z.string().refine((s) => !s.includes('\0'))).min(1)

/** Hooks run in order; the first block wins; rewrites chain. Fail closed: an erroring hook blocks. */
export async function runPreToolUse(
  hooks: Hooks['preToolUse'],
  input: PreToolUseInput,
  timeoutMs: number,
  signal: AbortSignal,
  errors: string[],
): Promise<PreToolUseVerdict> {
  let command = input.command
  let allowedBy: string | undefined
  for (const hook of hooks ?? []) {
    const run = await runHook<PreToolUseInput, PreToolUseResult>(hook, { ...input, command }, timeoutMs, signal)
    if (run.error) {
      errors.push(`PreToolUse: ${run.error}`)
      return { kind: 'blocked', reason: `PreToolUse hook failed (${run.error})`, command }
    }
    const out = run.output
    if (out?.decision === 'block') return { kind: 'blocked', reason: out.reason ?? 'blocked by a PreToolUse hook', command }
    if (out?.updatedCommand) {
      const parsed = argvSchema.safeParse(out.updatedCommand)
      if (!parsed.success) return { kind: 'blocked', reason: 'a PreToolUse hook returned an invalid command', command }
      command = parsed.data
      allowedBy = undefined // an allow given for the old command does not carry over
    }
    if (out?.decision === 'allow') allowedBy = out.reason ?? 'allowed by a PreToolUse hook'
  }
  return allowedBy !== undefined ? { kind: 'continue', command, allowedBy } : { kind: 'continue', command }
}

/** Returns the result to show and the context to add. The real result is never changed. */
export async function runPostToolUse<R extends SandboxResult>(
  hooks: Hooks['postToolUse'],
  input: Omit<PostToolUseInput, 'result'> & { result: R },
  timeoutMs: number,
  signal: AbortSignal,
  errors: string[],
): Promise<{ result: R; replaced: boolean; context: string[] }> {
  let result = input.result
  let replaced = false
  const context: string[] = []
  for (const hook of hooks ?? []) {
    const shown = { exitCode: result.exitCode, signal: result.signal, stdout: result.stdout, stderr: result.stderr }
    const run = await runHook<PostToolUseInput, PostToolUseResult>(hook, { ...input, result: shown }, timeoutMs, signal)
    if (run.error) {
      errors.push(`PostToolUse: ${run.error}`)
      continue
    }
    if (run.output?.additionalContext) context.push(run.output.additionalContext)
    const r = run.output?.replaceResult
    if (r) {
      result = {
        ...result,
        ...(r.stdout !== undefined ? { stdout: r.stdout } : {}),
        ...(r.stderr !== undefined ? { stderr: r.stderr } : {}),
        ...(r.exitCode !== undefined ? { exitCode: r.exitCode } : {}),
      }
      replaced = true
    }
  }
  return { result, replaced, context }
}
