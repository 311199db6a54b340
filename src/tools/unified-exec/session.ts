/**
 * One unified-exec process: a sandboxed command started by exec_command,
 * driven by write_stdin until it ends.
 *
 * A session with a terminal (`tty`) takes any input: it is typed into the
 * command's own PTY inside the sandbox (sandbox.spawn's `tty`), so ^C, ^D
 * and line editing mean what they mean at a keyboard. A session without
 * one runs with stdin at end of file (a command waiting for input would
 * otherwise wait forever) and accepts one thing only: an interrupt (a lone
 * `\x03`), which becomes SIGINT for the command's process group —
 * in Landlock mode the supervisor forwards it to the command, which may
 * handle it; in namespace mode it reaches bwrap, which forwards no signal,
 * and ends the whole sandbox (docs/linux.md). Anything else is refused
 * with a typed error: nothing is written anywhere. A tty session's ^C is
 * the terminal's own (its line discipline signals the foreground group) in
 * both modes.
 *
 * Output (a terminal's, or stdout and stderr interleaved as read) goes to
 * a bounded buffer (output-buffer.ts) each call takes from. terminate()
 * — a timeout, an abort, pruning, the store closing — ends the run for
 * good: the sandbox's stop, which kills the command's process group and
 * everything it left behind, also setsid()'d descendants.
 */
import { PolicyError } from '../../errors.js'
import type { DeferredPost } from '../../orchestrator/runtime.js'
import type { ToolName } from '../types.js'
import type { SandboxResult } from '../../sandbox/result.js'
import type { SandboxProcess } from '../../sandbox/run.js'
import type { TerminalSize } from '../../platform/backend.js'
import type { Enforcement } from '../../platform/enforcement.js'
import type { OutputBuffer } from './output-buffer.js'
import type { StoredProcess } from './process-store.js'

/** The only input a session without a terminal takes: ETX, ^C. */
export const INTERRUPT = '\x03'

export class Session implements StoredProcess {
  /** The run's result once it has ended (output read to its end). */
  result: SandboxResult | undefined
  /** A typed error when the run could not be set up. */
  failure: unknown
  readonly ended: Promise<void>
  /** The PostToolUse hooks of the exec_command call that started it, on its final result (set by that call). */
  after: Promise<DeferredPost> | undefined
  /** The exec_command call that started it: the dispatcher's PostToolUse of its end pairs with this call. */
  origin: { readonly callId: string; readonly tool: ToolName; readonly input: unknown } | undefined
  private readonly started = Date.now()

  /**
   * `output` is the buffer the run's output listener fills (`onOutput` of
   * its spawn(): stdout and stderr as read, or the terminal's output),
   * given before the spawn so that no chunk comes before it.
   */
  constructor(
    readonly command: readonly string[],
    private readonly proc: SandboxProcess,
    /** Aborts the run's own signal: the sandbox's stop. */
    private readonly stop: AbortController,
    readonly output: OutputBuffer,
  ) {
    this.ended = proc.then(
      (r) => void (this.result = r),
      (e: unknown) => void (this.failure = e),
    )
  }

  /** What the launcher applied, once the command started; rejects when the sandbox could not be set up. */
  get enforcement(): Promise<Enforcement> {
    return this.proc.enforcement
  }

  get tty(): boolean {
    return this.proc.terminal !== null
  }

  get exited(): boolean {
    return this.result !== undefined || this.failure !== undefined
  }

  get pid(): number | undefined {
    return this.proc.pid
  }

  /** Milliseconds since the session started. */
  get age(): number {
    return Date.now() - this.started
  }

  /** Type `chars` (a terminal), or interrupt (no terminal: only `\x03`). Empty input writes nothing. */
  write(chars: string): void {
    if (chars === '') return
    if (this.proc.terminal) {
      if (!this.proc.terminal.write(chars)) throw new PolicyError('the terminal took no more input: the command has ended, or 1 MiB of input is already waiting', { where: 'write_stdin: chars' })
      return
    }
    if (chars === INTERRUPT) return this.proc.kill('SIGINT')
    throw new PolicyError('this session has no terminal: its stdin is closed, and only an interrupt ("\\u0003") is accepted; start the command with tty: true to type into it', { where: 'write_stdin: chars' })
  }

  resize(size: TerminalSize): void {
    if (!this.proc.terminal) throw new PolicyError('this session has no terminal to resize', { where: 'write_stdin: size' })
    this.proc.terminal.resize(size)
  }

  /** Wait until the run ends or `ms` pass, whichever is first; an abort ends the wait early. */
  async settle(ms: number, signal?: AbortSignal): Promise<void> {
    if (this.exited || ms <= 0 || signal?.aborted) return
    let timer: NodeJS.Timeout | undefined
    let onAbort: (() => void) | undefined
    await Promise.race([
      this.ended,
      new Promise<void>((r) => {
        timer = setTimeout(r, ms)
        onAbort = r
        signal?.addEventListener('abort', onAbort, { once: true })
      }),
    ])
    clearTimeout(timer)
    if (onAbort) signal?.removeEventListener('abort', onAbort)
  }

  /** End the run for good; resolves when it has ended. */
  terminate(): Promise<void> {
    this.stop.abort()
    return this.ended
  }
}
