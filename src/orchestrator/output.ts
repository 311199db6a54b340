/**
 * A command's output as the orchestrator keeps it: streamed to the caller
 * as it arrives (`onOutput`), and kept in the result within `maxBuffer`
 * bytes per stream. Past the bound the start, the end, or both ends are
 * kept, and the result says what was cut: how many bytes, and where — in
 * the text (one marker line) and as data (`truncation`). An agent reading
 * only `stdout` still sees that something is missing, and where.
 */
import { StringDecoder } from 'node:string_decoder'

export type OutputStream = 'stdout' | 'stderr'

/** One piece of output, as it arrives. */
export interface OutputChunk {
  /** Which attempt printed it (2: the wider retry). */
  readonly attempt: 1 | 2
  readonly stream: OutputStream
  /** The text, decoded as UTF-8 without splitting a character across chunks. */
  readonly chunk: string
  /** The bytes read since the previous chunk of this stream (they may end inside a character that `chunk` holds back). */
  readonly raw: Buffer
}

/** Called for every chunk; not awaited (a callback that throws or rejects is noted in the outcome and not called again). */
export type OutputListener = (chunk: OutputChunk) => void | Promise<void>

/** Which part of an output longer than maxBuffer is kept. */
export type OutputKeep = 'head' | 'tail' | 'head-tail'

/** What was cut from one stream. */
export interface OutputCut {
  /** Bytes the command wrote to the stream. */
  readonly totalBytes: number
  /** Bytes kept in the result (at most maxBuffer). */
  readonly keptBytes: number
  readonly droppedBytes: number
  /** Where the dropped bytes were: `end` (keep head), `start` (keep tail), `middle` (keep head-tail). */
  readonly where: 'start' | 'middle' | 'end'
  /** Byte offset in the command's output where the dropped part began. */
  readonly offset: number
}

export interface OutputTruncation {
  readonly stdout?: OutputCut
  readonly stderr?: OutputCut
}

/** The sandbox's default bound per stream (64 MiB), kept as the orchestrator's default. */
export const DEFAULT_MAX_BUFFER = 64 * 1024 * 1024

/** Keeps the first `headMax` and the last `tailMax` bytes of a stream, and counts the rest. */
export class OutputCollector {
  private readonly head: Buffer[] = []
  private headSize = 0
  private tail: Buffer[] = []
  private tailSize = 0
  private total = 0
  private readonly headMax: number
  private readonly tailMax: number

  constructor(
    readonly stream: OutputStream,
    private readonly maxBuffer: number,
    private readonly keep: OutputKeep,
  ) {
    this.headMax = keep === 'head' ? maxBuffer : keep === 'tail' ? 0 : Math.ceil(maxBuffer / 2)
    this.tailMax = maxBuffer - this.headMax
  }

  push(data: Buffer): void {
    this.total += data.length
    if (this.headSize < this.headMax) {
      const take = data.subarray(0, this.headMax - this.headSize)
      this.head.push(take)
      this.headSize += take.length
      data = data.subarray(take.length)
    }
    if (data.length === 0 || this.tailMax === 0) return
    this.tail.push(data)
    this.tailSize += data.length
    // Drop whole chunks from the front while the rest still covers the bound, then trim the first.
    while (this.tailSize - (this.tail[0] as Buffer).length >= this.tailMax) this.tailSize -= (this.tail.shift() as Buffer).length
    const over = this.tailSize - this.tailMax
    if (over > 0) {
      this.tail[0] = (this.tail[0] as Buffer).subarray(over)
      this.tailSize -= over
    }
  }

  /** The kept bytes as they are (the head, then the tail: the cut lies between them) and how many were written in all. */
  kept(): { head: Buffer; tail: Buffer; total: number } {
    return { head: Buffer.concat(this.head), tail: Buffer.concat(this.tail), total: this.total }
  }

  /** The kept text (with a marker where bytes were cut) and what was cut, if anything. */
  finish(): { text: string; cut?: OutputCut } {
    const head = Buffer.concat(this.head)
    const tail = Buffer.concat(this.tail)
    const kept = head.length + tail.length
    if (kept === this.total) return { text: Buffer.concat([head, tail]).toString('utf8') }
    const dropped = this.total - kept
    const where = this.keep === 'head' ? 'end' : this.keep === 'tail' ? 'start' : 'middle'
    const cut: OutputCut = { totalBytes: this.total, keptBytes: kept, droppedBytes: dropped, where, offset: head.length }
    const marker = `[cordon: ${dropped} of ${this.total} bytes of ${this.stream} cut here (maxBuffer ${this.maxBuffer}, keep ${this.keep})]`
    const before = decodeHead(head)
    const after = decodeTail(tail)
    const text = where === 'start' ? `${marker}\n${after}` : where === 'end' ? `${before}\n${marker}` : `${before}\n${marker}\n${after}`
    return { text, cut }
  }
}

/** The head without a character cut off at its end. */
export function decodeHead(b: Buffer): string {
  return new StringDecoder('utf8').write(b) // write() holds back an incomplete trailing sequence
}

/** The tail without the continuation bytes of a character whose start was cut. */
export function decodeTail(b: Buffer): string {
  let i = 0
  while (i < 3 && i < b.length && ((b[i] as number) & 0xc0) === 0x80) i++
  return b.subarray(i).toString('utf8')
}

/**
 * Delivers chunks to the caller's listener, decoded per stream. A listener
 * that throws (or whose promise rejects) is not called again; `failure`
 * says why, for the outcome's notes.
 */
export class OutputRelay {
  private readonly decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') }
  /** Bytes read but not delivered yet: a read that ended inside a character gave no text. */
  private readonly pending: Record<OutputStream, Buffer[]> = { stdout: [], stderr: [] }
  failure: string | undefined

  constructor(
    private readonly attempt: 1 | 2,
    private readonly listener: OutputListener | undefined,
  ) {}

  data(stream: OutputStream, raw: Buffer): void {
    if (!this.listener || this.failure !== undefined) return
    this.pending[stream].push(raw)
    this.deliver(stream, this.decoders[stream].write(raw))
  }

  /** The stream ended: what the decoder still held (an incomplete last character, as U+FFFD). */
  end(stream: OutputStream): void {
    if (!this.listener || this.failure !== undefined) return
    this.deliver(stream, this.decoders[stream].end())
  }

  private deliver(stream: OutputStream, chunk: string): void {
    if (chunk === '' || !this.listener) return
    const raw = Buffer.concat(this.pending[stream].splice(0))
    try {
      const r = this.listener({ attempt: this.attempt, stream, chunk, raw })
      if (r && typeof (r as Promise<void>).then === 'function') (r as Promise<void>).then(undefined, (e: unknown) => this.fail(e))
    } catch (e) {
      this.fail(e)
    }
  }

  private fail(e: unknown): void {
    this.failure ??= `onOutput failed and was not called again: ${(e as Error)?.message ?? String(e)}`
  }
}
