/**
 * External hooks: a command that reads one JSON object on stdin and writes
 * one on stdout — the shape agent tools already use (`hook_event_name`,
 * `tool_input` in; `decision` + `reason`, or `hookSpecificOutput`, out).
 * Exit status 2 means "block" with stderr as the reason. The hook runs in
 * its own process group and is killed as a group at the timeout, so a hook
 * that forks cannot outlive it or hold the orchestrator.
 */
import { spawn } from 'node:child_process'

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

export function runHookCommand(hook: HookCommand, input: unknown, timeoutMs: number, signal: AbortSignal): Promise<HookProcessResult> {
  const [file, ...args] = hook.command
  if (!file) return Promise.resolve({ ok: false, error: 'hook command is empty' })
  return new Promise((resolve) => {
    const child = spawn(file, args, {
      cwd: hook.cwd,
      env: { ...process.env, ...hook.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true, // own process group: killed as a whole at the timeout
    })
    let stdout = ''
    let stderr = ''
    let settled = false
    const finish = (r: HookProcessResult) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      signal.removeEventListener('abort', onAbort)
      if (!r.ok) killGroup(child.pid)
      child.stdout.destroy()
      child.stderr.destroy()
      resolve(r)
    }
    const onAbort = () => finish({ ok: false, error: 'aborted' })
    const timer = setTimeout(() => finish({ ok: false, error: `timed out after ${timeoutMs} ms` }), timeoutMs)
    signal.addEventListener('abort', onAbort, { once: true })
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout.length < MAX_OUTPUT ? (stdout += d) : undefined))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr.length < MAX_OUTPUT ? (stderr += d) : undefined))
    child.on('error', (e) => finish({ ok: false, error: `cannot run hook: ${e.message}` }))
    child.on('close', (code, sig) => finish(sig ? { ok: false, error: `hook killed by ${sig}` } : { ok: true, exitCode: code ?? 1, stdout, stderr }))
    child.stdin.on('error', () => {}) // a hook that does not read stdin is fine
    child.stdin.end(JSON.stringify(input))
  })
}

function killGroup(pid: number | undefined): void {
  if (!pid) return
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {
    /* already gone */
  }
}
