/**
 * The unified-exec runtime (orchestrator/runtime.ts): exec_command's
 * attempt in the sandbox the orchestrator chose. It starts the command —
 * on a terminal of its own inside the sandbox with `tty`, else with stdin
 * at end of file —, waits for it to start (a sandbox that cannot be set up
 * is the attempt's error), then waits the yield window:
 *
 *  - ended within it: the run's result, as any command's (denial
 *    detection, a wider retry, PostToolUse as usual);
 *  - still running: a snapshot result and the live session. The session
 *    keeps the sandbox open (`retain`) until the process ends; denials are
 *    not looked for in a partial output (no wider retry starts a second
 *    copy of a live process), and PostToolUse waits for the final result
 *    (`final`).
 *
 * An abort of the attempt ends the process and everything it started
 * before the attempt settles.
 */
import type { AttemptResult } from '../../orchestrator/attempt.js'
import type { AttemptContext, AttemptSandbox, RuntimeAttempt, RuntimeDescription, ToolRuntime } from '../../orchestrator/runtime.js'
import type { SandboxPermissions } from '../../orchestrator/approval/requirement.js'
import type { TerminalSize } from '../../platform/backend.js'
import type { Enforcement } from '../../platform/enforcement.js'
import type { SandboxResult } from '../../sandbox/result.js'
import { Session } from './session.js'
import { OutputBuffer } from './output-buffer.js'

export interface ExecCommandRequest {
  /** The argv decided and run (a shell script is `['/bin/sh', '-c', script]`). */
  readonly command: readonly string[]
  /** Relative to the orchestrator's workspace. */
  readonly cwd?: string
  readonly env?: Readonly<Record<string, string>>
  /** A terminal of this size, or none (stdin at end of file). */
  readonly tty?: TerminalSize
  /** The yield window (ms), already clamped. */
  readonly yieldMs: number
  /** The session's whole lifetime (ms): past it the process group and everything it started are killed. */
  readonly timeoutMs?: number
  readonly sandboxPermissions?: SandboxPermissions
  readonly justification?: string
}

/** The attempt's product: the session, ended or still running. */
export interface ExecCommandAttempt {
  readonly session: Session
}

function snapshot(session: Session, enforcement: Enforcement): AttemptResult {
  return { command: [...session.command], exitCode: null, signal: null, stdout: '', stderr: '', outputTruncated: false, timedOut: false, isCanceled: false, durationMs: session.age, enforcement }
}

/** The session's end as the orchestrator's result; a setup failure is thrown. */
async function finalResult(session: Session): Promise<AttemptResult> {
  await session.ended
  if (session.failure !== undefined) throw session.failure
  return session.result as SandboxResult
}

/** Start the command in `sb`; the sandbox stays open until the process has ended. */
function start(req: ExecCommandRequest, handle: AttemptSandbox, ctx: AttemptContext): Session {
  const sb = handle.sandbox
  const release = handle.retain()
  const stop = new AbortController()
  const argv = ctx.command
  const output = new OutputBuffer()
  try {
    const proc = sb.spawn(argv[0] as string, argv.slice(1), {
      ...(req.tty ? { tty: req.tty } : { stdin: 'ignore' as const }),
      // Chunks straight into the session's buffer: no stream objects (a terminal's output comes here too).
      onOutput: (_stream, chunk) => output.push(chunk),
      signal: stop.signal,
      ...(req.timeoutMs ? { timeout: req.timeoutMs } : {}),
      ...(req.env ? { env: { ...req.env } } : {}),
      ...(sb.cwd !== ctx.cwd ? { cwd: ctx.cwd } : {}),
      maxBuffer: ctx.output.maxBuffer,
    })
    const session = new Session(argv, proc, stop, output)
    void session.ended.then(release)
    return session
  } catch (e) {
    release()
    throw e
  }
}

export const unifiedExecRuntime: ToolRuntime<ExecCommandRequest, ExecCommandAttempt> = {
  name: 'unified_exec',
  describe(req: ExecCommandRequest): RuntimeDescription {
    return {
      command: req.command,
      ...(req.cwd !== undefined ? { cwd: req.cwd } : {}),
      summary: `${req.command.join(' ').slice(0, 200)}${req.tty ? ' (on an interactive terminal)' : ''}`,
      // What is typed into the terminal later (write_stdin) runs with this attempt's rights and is
      // reviewed by no one: the approver is told, and an approval without it does not cover it.
      ...(req.tty ? { interactive: true } : {}),
      ...(req.env ? { env: req.env } : {}),
      ...(req.sandboxPermissions ? { sandboxPermissions: req.sandboxPermissions } : {}),
      ...(req.justification !== undefined ? { justification: req.justification } : {}),
      ...(req.timeoutMs !== undefined ? { timeout: req.timeoutMs } : {}),
    }
  },
  withCommand: (req, command) => ({ ...req, command: [...command] }),
  async attempt(req: ExecCommandRequest, handle: AttemptSandbox, ctx: AttemptContext): Promise<RuntimeAttempt<ExecCommandAttempt>> {
    const session = start(req, handle, ctx)
    const onAbort = () => void session.terminate()
    ctx.signal.addEventListener('abort', onAbort, { once: true })
    let enforcement: Enforcement
    try {
      enforcement = await session.enforcement
      await session.settle(req.yieldMs, ctx.signal)
      if (ctx.signal.aborted) await session.terminate()
    } catch (e) {
      await session.terminate()
      throw e // the sandbox could not be set up: the attempt's error
    } finally {
      ctx.signal.removeEventListener('abort', onAbort)
    }
    if (session.exited) return { output: { session }, result: await finalResult(session) }
    const final = finalResult(session)
    final.catch(() => {}) // observed by the orchestrator's deferred PostToolUse
    return { output: { session }, result: snapshot(session, enforcement), denials: [], final }
  },
}
