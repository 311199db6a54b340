/**
 * Writes to a non-blocking descriptor that never block the event loop: what
 * the descriptor does not take now is queued and retried shortly after.
 *
 * For a PTY master (pty.ts; the addon opens it non-blocking): a command
 * that does not read its terminal while the user pastes fills the PTY's
 * input buffer, and a blocking write would then freeze the caller. Retrying
 * on a timer rather than polling for writability keeps this out of the
 * addon; it only ever runs while a terminal's input is backed up. Also for
 * the caller's stdin terminal when it is the only one (caller-terminal.ts):
 * a blocking descriptor there waits as Node's own terminal writes do.
 */
import { writeSync } from 'node:fs'

/** How long a full descriptor is left before the next try. */
const RETRY_MS = 10
/** Queued bytes beyond this are dropped: nobody reads the other side. */
const MAX_QUEUED = 1 << 20

export class FdWriter {
  private readonly queue: Buffer[] = []
  private queued = 0
  private timer: NodeJS.Timeout | undefined
  private closed = false

  constructor(private readonly fd: number) {}

  /** Queue `data`; false when it was dropped (closed, or too much is waiting). */
  write(data: Uint8Array | string): boolean {
    const bytes = typeof data === 'string' ? Buffer.from(data) : Buffer.from(data.buffer, data.byteOffset, data.byteLength)
    if (this.closed || this.queued + bytes.length > MAX_QUEUED) return false
    this.queue.push(bytes)
    this.queued += bytes.length
    if (!this.timer) this.flush()
    return true
  }

  /** Stop: what is queued is dropped, and the descriptor is never written again (its owner closes it). */
  close(): void {
    this.closed = true
    clearTimeout(this.timer)
    this.queue.length = 0
    this.queued = 0
  }

  private flush(): void {
    this.timer = undefined
    while (!this.closed && this.queue.length > 0) {
      const head = this.queue[0]!
      let n: number
      try {
        n = writeSync(this.fd, head)
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code
        if (code === 'EINTR') continue
        if (code === 'EAGAIN') this.timer = setTimeout(() => this.flush(), RETRY_MS).unref()
        else this.close() // EIO: the other side is gone
        return
      }
      this.queued -= n
      if (n < head.length) this.queue[0] = head.subarray(n)
      else this.queue.shift()
    }
  }
}
