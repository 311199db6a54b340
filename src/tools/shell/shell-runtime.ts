/**
 * The shell runtime: one command (argv) run to its end in the sandbox the
 * orchestrator chose, its output streamed to the caller and kept within
 * the capture cap. `orchestrator.exec(request)` is
 * `orchestrator.run(shellRuntime, request)`.
 */
import { SetupError } from '../../errors.js'
import type { Sandbox } from '../../sandbox/sandbox.js'
import type { AttemptResult } from '../../orchestrator/attempt.js'
import type { ExecRequestParsed } from '../../orchestrator/options.js'
import { OutputCollector, OutputRelay, type OutputTruncation } from '../../orchestrator/output.js'
import type { AttemptContext, AttemptSandbox, RuntimeAttempt, RuntimeDescription, ToolRuntime } from '../../orchestrator/runtime.js'

export type ShellRequest = ExecRequestParsed

export const shellRuntime: ToolRuntime<ShellRequest, AttemptResult> = {
  name: 'shell',
  describe(req: ShellRequest): RuntimeDescription {
    return {
      command: req.command,
      ...(req.cwd !== undefined ? { cwd: req.cwd } : {}),
      summary: req.command.join(' ').slice(0, 200),
      ...(req.input !== undefined ? { input: req.input } : {}),
      ...(req.env ? { env: req.env } : {}),
      sandboxPermissions: req.sandboxPermissions,
      ...(req.justification !== undefined ? { justification: req.justification } : {}),
      ...(req.escalateOnFailure !== undefined ? { escalateOnFailure: req.escalateOnFailure } : {}),
      ...(req.timeout !== undefined ? { timeout: req.timeout } : {}),
    }
  },
  withCommand: (req, command) => ({ ...req, command: [...command] }),
  async attempt(req: ShellRequest, handle: AttemptSandbox, ctx: AttemptContext): Promise<RuntimeAttempt<AttemptResult>> {
    const sb = handle.sandbox
    const argv = sb.cwd === ctx.cwd ? ctx.command : inDirectory(ctx.cwd, ctx.command)
    const result = await streamed(sb, argv, req, handle.index, ctx).catch((e: unknown) => {
      // The host changed between planning and launch and nothing ran (a
      // path vanished, namespaces stopped working): plan again, once, as
      // sandbox.run() does.
      if (!(e instanceof SetupError && e.hostChanged) || ctx.signal.aborted) throw e
      ctx.notes.push(`attempt ${handle.index}: ${e.message}; planned again`)
      return streamed(sb, argv, req, handle.index, ctx)
    })
    return { output: { ...result, command: [...ctx.command] }, result }
  },
}

/**
 * Run through the sandbox's spawn() with an output listener (no stream
 * objects): every chunk goes to the caller's listener as it arrives and
 * into a collector that keeps maxBuffer bytes per stream (head, tail or
 * both). The sandbox keeps its own copy within the same bound; the result
 * shows the collector's. Every chunk has been handed on before the result
 * resolves. stdin is given explicitly (the request's input, else none),
 * whatever spawn's default.
 */
async function streamed(sb: Sandbox, argv: readonly string[], req: ShellRequest, index: 1 | 2, ctx: AttemptContext): Promise<AttemptResult> {
  const { maxBuffer, keep, listener } = ctx.output
  const relay = new OutputRelay(index, listener)
  const collectors = { stdout: new OutputCollector('stdout', maxBuffer, keep), stderr: new OutputCollector('stderr', maxBuffer, keep) }
  const onOutput = (stream: 'stdout' | 'stderr', d: Buffer) => {
    collectors[stream].push(d)
    relay.data(stream, d)
  }
  const run = { ...(req.timeout ? { timeout: req.timeout } : {}), ...(req.input !== undefined ? { input: req.input } : {}), ...(req.env ? { env: req.env } : {}), signal: ctx.signal }
  const stdin = req.input !== undefined ? 'pipe' : 'ignore'
  try {
    const result = await sb.spawn(argv[0] as string, argv.slice(1), { ...run, stdin, stdout: 'pipe', stderr: 'pipe', maxBuffer, encoding: 'utf8', onOutput })
    const o = collectors.stdout.finish()
    const e = collectors.stderr.finish()
    const truncation: OutputTruncation | undefined = o.cut || e.cut ? { ...(o.cut ? { stdout: o.cut } : {}), ...(e.cut ? { stderr: e.cut } : {}) } : undefined
    return { ...result, stdout: o.text, stderr: e.text, outputTruncated: truncation !== undefined, ...(truncation ? { truncation } : {}) }
  } finally {
    // Whatever the decoders still hold (an incomplete last character), also when the run failed.
    relay.end('stdout')
    relay.end('stderr')
    if (relay.failure) ctx.notes.push(relay.failure)
  }
}

/** Run argv in `dir` inside the same sandbox: `sh -c 'cd -- "$1" && shift && exec "$@"'`. */
function inDirectory(dir: string, argv: readonly string[]): string[] {
  return ['/bin/sh', '-c', 'cd -- "$1" && shift && exec "$@"', 'cordon-cd', dir, ...argv]
}
