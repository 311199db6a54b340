/**
 * External hooks: a command that reads one JSON object on stdin and writes
 * one on stdout — the shape agent tools already use (`hook_event_name`,
 * `tool_input` in; `decision` + `reason`, or `hookSpecificOutput`, out).
 * Exit status 2 means "block" with stderr as the reason.
 *
 * A hook runs under the same supervision as a command (issue 13 §8):
 * through cordon's launcher, with a profile that confines nothing
 * (`unsandboxed`: the hook is the embedder's own program and needs the
 * embedder's rights, environment and files) but keeps what the launcher
 * always does — a new session, no inherited descriptors, no capabilities,
 * no_new_privs — and its supervisor, a child subreaper. A process the hook
 * leaves behind, double-forked and `setsid`'d out of its process group
 * included, is re-parented to the supervisor and killed when the hook
 * exits, times out or is aborted: nothing a hook starts outlives it or
 * holds the orchestrator. (A process-group kill, as before, missed exactly
 * those.)
 */
import { CordonError } from '../../errors.js'
import { createSandbox as defaultCreateSandbox, type Sandbox } from '../../sandbox/sandbox.js'
import type { SandboxOptions } from '../../sandbox/options.js'

export interface HookCommand {
  /** argv of the hook program. Not run through a shell. */
  readonly command: readonly string[]
  /** Default: the orchestrator's `hookTimeoutMs` (10 s). */
  readonly timeoutMs?: number
  readonly env?: Readonly<Record<string, string>>
  readonly cwd?: string
}

export type HookProcessResult =
  | { readonly ok: true; readonly exitCode: number; readonly stdout: string; readonly stderr: string }
  | { readonly ok: false; readonly error: string }

const MAX_OUTPUT = 1024 * 1024

/** Nothing confined, nothing dropped: the launcher's supervision only. */
const HOOK_PROFILE = {
  name: 'hook',
  filesystem: { read: 'all' as const, write: [], denySecrets: false },
  network: 'on' as const,
  env: { dropSecrets: false, deny: [] },
  unsandboxed: true,
}

export async function runHookCommand(
  hook: HookCommand,
  input: unknown,
  timeoutMs: number,
  signal: AbortSignal,
  make: (options: SandboxOptions) => Sandbox = defaultCreateSandbox,
): Promise<HookProcessResult> {
  const [file, ...args] = hook.command
  if (!file) return { ok: false, error: 'hook command is empty' }
  if (signal.aborted) return { ok: false, error: 'aborted' }
  let sb: Sandbox | undefined
  try {
    sb = make({ profile: HOOK_PROFILE, cwd: hook.cwd ?? process.cwd(), env: { ...process.env, ...hook.env } })
    const r = await sb.spawn(file, args, { input: JSON.stringify(input), timeout: timeoutMs, signal, maxBuffer: MAX_OUTPUT })
    if (r.timedOut) return { ok: false, error: `timed out after ${timeoutMs} ms` }
    if (r.isCanceled || signal.aborted) return { ok: false, error: 'aborted' }
    if (r.signal) return { ok: false, error: `hook killed by ${r.signal}` }
    return { ok: true, exitCode: r.exitCode ?? 1, stdout: r.stdout, stderr: r.stderr }
  } catch (e) {
    if (signal.aborted) return { ok: false, error: 'aborted' }
    return { ok: false, error: `cannot run hook: ${e instanceof CordonError ? e.message : String((e as Error)?.message ?? e)}` }
  } finally {
    sb?.close()
  }
}
