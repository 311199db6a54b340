/**
 * The command's output on its way to the result — and, for `spawn()`, to
 * the streams the caller is handed.
 *
 * cordon reads each output pipe itself and keeps what it read for the
 * result (at most `maxBuffer` bytes a stream). The streams a `spawn()`
 * caller gets are copies cordon pushes into, never the pipe cordon reads:
 * whatever the caller does with them (setEncoding, pause, destroy, reading
 * them, removing every listener) cannot reach the collection, so the result
 * always settles and nothing throws in a stream handler. (Issue 11, bug 1:
 * the collector listened on the very socket it handed out, a caller's
 * setEncoding made it `Buffer.concat` strings in an 'end' handler — an
 * uncaught TypeError no caller could catch — and a pause or a destroy left
 * the result waiting or short.)
 *
 * How those streams hold back or not is mirror.ts's; once the command has
 * ended (`drain()`), the rest of each pipe is read whatever the caller does.
 *
 * Both read their pipes with the addon's FdReader (no node:net socket per
 * pipe); a run without streams (`run()`) builds no stream object either.
 */
import { createRequire } from 'node:module'
import type { Readable } from 'node:stream'
import { loadNative } from '../../../native/load.js'
import { Mirror, type PipeControl } from './mirror.js'

export interface CollectedOutput {
  stdout: Buffer
  stderr: Buffer
  /** Both streams' kept bytes in the order cordon read them (asked for with `all`). */
  all?: Buffer
  /** A stream went past `max`: the rest was not kept (the command ran on). */
  truncated: boolean
}

export interface OutputOptions {
  /** Bytes kept per stream. */
  max: number
  all: boolean
  /** Hand the caller a Readable per piped stream (`spawn()`), unless `onOutput` takes the chunks. */
  streams: boolean
  /** Each chunk as read, in place of the streams; must not throw (run.ts guards the caller's). */
  onOutput?: (stream: 'stdout' | 'stderr', chunk: Buffer) => void
}

export interface Output {
  stdout: Readable | null
  stderr: Readable | null
  done: Promise<CollectedOutput>
  /** The command has ended: read the rest of the pipes, whether or not the caller reads its streams. */
  drain(): void
}

/** What is kept for the result of one stream: at most `max` bytes; `all` gets every kept chunk too. */
export class Collector {
  private readonly chunks: Buffer[] = []
  private size = 0
  truncated = false

  constructor(
    private readonly max: number,
    private readonly all: Buffer[] | undefined,
  ) {}

  take(d: Buffer): void {
    if (this.size + d.length > this.max) {
      this.truncated = true
      d = d.subarray(0, this.max - this.size)
    }
    if (d.length === 0) return
    this.size += d.length
    this.chunks.push(d)
    this.all?.push(d)
  }

  bytes(): Buffer {
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size)
  }
}

/** Loaded only by a run that hands out streams: a `run()` does not need it. */
let readable: typeof import('node:stream').Readable | undefined
function readableClass(): typeof import('node:stream').Readable {
  // (createRequire itself costs ~15 µs: once, not per spawn)
  readable ??= (createRequire(import.meta.url)('node:stream') as typeof import('node:stream')).Readable
  return readable
}

/**
 * `onEnd` runs once: at end of file, on a read error, or when the
 * descriptor closes. The addon's reader, for `run()` and `spawn()` alike:
 * no node:net socket per pipe (~0.05 ms each a spawn); pause() and
 * resume() give a `spawn()` caller's stream its back-pressure.
 */
function readerSource(fd: number, onData: (d: Buffer) => void, onEnd: () => void): PipeControl {
  const reader = new (loadNative().binding.FdReader)(fd, (chunk) => (chunk ? onData(chunk) : onEnd()))
  return { pause: () => reader.pause(), resume: () => reader.resume() }
}

/**
 * Read the command's output pipes (`undefined`: not piped). The returned
 * streams are the caller's; `done` resolves once both pipes reached end of
 * file, never rejects.
 */
export function readOutput(stdoutFd: number | undefined, stderrFd: number | undefined, opts: OutputOptions): Output {
  const all = opts.all ? ([] as Buffer[]) : undefined
  const pipes = [pipe(stdoutFd, 'stdout', new Collector(opts.max, all), opts), pipe(stderrFd, 'stderr', new Collector(opts.max, all), opts)]
  const done = Promise.all(pipes.map((p) => p.ended)).then(([out, err]): CollectedOutput => {
    const collected: CollectedOutput = { stdout: out!.bytes(), stderr: err!.bytes(), truncated: out!.truncated || err!.truncated }
    if (all) collected.all = all.length === 1 ? all[0]! : Buffer.concat(all)
    return collected
  })
  return { stdout: pipes[0]!.mirror?.stream ?? null, stderr: pipes[1]!.mirror?.stream ?? null, done, drain: () => pipes.forEach((p) => p.mirror?.drain()) }
}

/** One output pipe: read into `collector`, and mirrored into the caller's stream when it gets one. */
function pipe(fd: number | undefined, name: 'stdout' | 'stderr', collector: Collector, opts: OutputOptions): { mirror: Mirror | undefined; ended: Promise<Collector> } {
  if (fd === undefined) return { mirror: undefined, ended: Promise.resolve(collector) }
  let resolveEnded!: (c: Collector) => void
  const ended = new Promise<Collector>((r) => (resolveEnded = r))
  const listener = opts.onOutput
  // No stream object for run(), nor for a spawn() whose chunks go to a listener (~0.05 ms a spawn less than two mirrored Readables).
  if (listener || !opts.streams) {
    readerSource(fd, listener ? (d) => (collector.take(d), listener(name, d)) : (d) => collector.take(d), () => resolveEnded(collector))
    return { mirror: undefined, ended }
  }
  let source: PipeControl | undefined
  const mirror = new Mirror(readableClass(), opts.max, { pause: () => source?.pause(), resume: () => source?.resume() })
  source = readerSource(
    fd,
    (d) => (collector.take(d), mirror.push(d)),
    () => (mirror.end(), resolveEnded(collector)),
  )
  return { mirror, ended }
}
