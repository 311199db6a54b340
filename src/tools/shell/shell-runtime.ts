/**
 * The shell runtime: one command (argv) run to its end in the sandbox the
 * orchestrator chose, its output streamed to the caller and kept within
 * the capture cap. `orchestrator.exec(request)` is
 * `orchestrator.run(shellRuntime, request)`.
 */
import type { Readable } from 'node:stream'
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
 * Run through the sandbox's spawn(): every chunk goes to the caller's
 * listener as it arrives and into a collector that keeps maxBuffer bytes
 * per stream (head, tail or both). The sandbox keeps its own copy within
 * the same bound; the result shows the collector's. stdin is given
 * explicitly (the request's input, else none), whatever spawn's default.
 */
async function streamed(sb: Sandbox, argv: readonly string[], req: ShellRequest, index: 1 | 2, ctx: AttemptContext): Promise<AttemptResult> {
  const { maxBuffer, keep, listener } = ctx.output
  const relay = new OutputRelay(index, listener)
  const out = new OutputCollector('stdout', maxBuffer, keep)
  const err = new OutputCollector('stderr', maxBuffer, keep)
  const run = { ...(req.timeout ? { timeout: req.timeout } : {}), ...(req.input !== undefined ? { input: req.input } : {}), ...(req.env ? { env: req.env } : {}), signal: ctx.signal }
  const stdin = req.input !== undefined ? 'pipe' : 'ignore'
  const child = sb.spawn(argv[0] as string, argv.slice(1), { ...run, stdin, stdout: 'pipe', stderr: 'pipe', maxBuffer, encoding: 'utf8' })
  const ended = Promise.all([follow(child.stdout, out, relay), follow(child.stderr, err, relay)])
  try {
    const result = await child
    await ended
    const o = out.finish()
    const e = err.finish()
    const truncation: OutputTruncation | undefined = o.cut || e.cut ? { ...(o.cut ? { stdout: o.cut } : {}), ...(e.cut ? { stderr: e.cut } : {}) } : undefined
    return { ...result, stdout: o.text, stderr: e.text, outputTruncated: truncation !== undefined, ...(truncation ? { truncation } : {}) }
  } finally {
    if (relay.failure) ctx.notes.push(relay.failure)
  }
}

/** Feed one output stream to the collector and the relay; resolves when it has ended. */
function follow(stream: Readable | null, collector: OutputCollector, relay: OutputRelay): Promise<void> {
  if (!stream) return Promise.resolve()
  return new Promise((resolve) => {
    let done = false
    stream.on('data', (d: Buffer | string) => {
      const b = typeof d === 'string' ? Buffer.from(d) : d
      collector.push(b)
      relay.data(collector.stream, b)
    })
    const finish = () => {
      if (done) return
      done = true
      relay.end(collector.stream)
      resolve()
    }
    stream.once('end', finish)
    stream.once('close', finish)
    stream.once('error', finish)
  })
}

/** Run argv in `dir` inside the same sandbox: `sh -c 'cd -- "$1" && shift && exec "$@"'`. */
function inDirectory(dir: string, argv: readonly string[]): string[] {
  return ['/bin/sh', '-c', 'cd -- "$1" && shift && exec "$@"', 'cordon-cd', dir, ...argv]
}
