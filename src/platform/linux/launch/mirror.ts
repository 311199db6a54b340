/**
 * The stream a `spawn()` caller gets for one output pipe: a copy of what
 * cordon reads, never the pipe itself (output.ts says why).
 *
 * It never keeps the result from settling, whatever the caller does:
 *
 * - A stream nobody consumes (no 'data' or 'readable' listener, no pipe(),
 *   resume() or pause() yet) never holds the command back: it keeps the
 *   first `highWaterMark` (= maxBuffer) bytes, as the result does, and ends
 *   there if the output goes on.
 * - A stream the caller consumes gets backpressure: past `highWaterMark`
 *   unread bytes cordon stops reading the pipe until the caller reads on
 *   (the command blocks on its writes, as under node:child_process), so a
 *   pipe() into a slow destination loses nothing. A pause() that is never
 *   resumed holds back a command that writes more than that — until it
 *   ends or its timeout stops it.
 * - Once the command has ended (`drain()`), what is left in the pipe is
 *   read regardless: the result settles even for a stream paused forever.
 * - A destroyed stream gets nothing more and holds nothing back.
 */
import type { Readable } from 'node:stream'

export interface PipeControl {
  pause(): void
  resume(): void
}

export class Mirror {
  readonly stream: Readable
  private paused = false
  private draining = false
  /** Ended early: nobody consumed it and it reached its high-water mark. */
  private cut = false
  /** Bytes pushed so far: all of them unread while nobody consumes the stream. */
  private pushed = 0

  constructor(
    ReadableClass: typeof Readable,
    highWaterMark: number,
    private readonly pipe: PipeControl,
  ) {
    // Readable calls read() when it wants more (the unread data may still be
    // at the mark then: it is taken off after the call), and once destroyed
    // the stream wants nothing held back.
    this.stream = new ReadableClass({ highWaterMark, read: () => this.resumePipe() })
    this.stream.once('close', () => this.resumePipe())
  }

  push(d: Buffer): void {
    const s = this.stream
    if (this.cut || s.destroyed) return
    if (s.readableFlowing === null && this.pushed + d.length > s.readableHighWaterMark) {
      // Exactly the first highWaterMark bytes, as the result keeps.
      this.cut = true
      const room = s.readableHighWaterMark - this.pushed
      if (room > 0) s.push(Buffer.from(d.subarray(0, room)))
      s.push(null)
      return
    }
    this.pushed += d.length
    // A copy: a caller's chunk is theirs to change in place, the result's is not.
    if (s.push(Buffer.from(d)) || this.draining || s.readableFlowing === null) return
    this.paused = true
    this.pipe.pause()
  }

  end(): void {
    if (!this.cut && !this.stream.destroyed) this.stream.push(null)
  }

  /** The command has ended: read the rest of the pipe (at most its capacity) whatever the caller does. */
  drain(): void {
    this.draining = true
    this.resumePipe()
  }

  private resumePipe(): void {
    if (!this.paused) return
    this.paused = false
    this.pipe.resume()
  }
}
