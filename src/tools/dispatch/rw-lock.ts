/**
 * A fair read/write lock for the calls of one dispatcher. Parallel tools
 * take it shared (read), the others exclusive (write). Requests are served
 * in arrival order (call order): a write waits for the reads before it,
 * and reads after a waiting write wait for it — a stream of parallel calls
 * never starves a non-parallel one.
 */
import { AbortError } from '../../errors.js'

export type LockMode = 'read' | 'write'

interface Waiter {
  readonly mode: LockMode
  readonly grant: () => void
}

export class RwLock {
  private readers = 0
  private writer = false
  private readonly queue: Waiter[] = []

  /** Resolves with the release once held; rejects with AbortError when `signal` aborts first. */
  acquire(mode: LockMode, signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(new AbortError('aborted while waiting for the tool lock'))
    // Free and nobody queued: held at once, without hooking the signal only to unhook it.
    if (this.queue.length === 0 && this.free(mode)) return Promise.resolve(this.take(mode))
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        mode,
        grant: () => {
          signal?.removeEventListener('abort', onAbort)
          resolve(this.take(mode))
        },
      }
      const onAbort = () => {
        const i = this.queue.indexOf(waiter)
        if (i < 0) return
        this.queue.splice(i, 1)
        reject(new AbortError('aborted while waiting for the tool lock'))
        this.pump()
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      this.queue.push(waiter)
      this.pump()
    })
  }

  private free(mode: LockMode): boolean {
    return mode === 'write' ? !this.writer && this.readers === 0 : !this.writer
  }

  /** Hold the lock in `mode`; the release it returns counts once. */
  private take(mode: LockMode): () => void {
    if (mode === 'write') this.writer = true
    else this.readers++
    let done = false
    return () => {
      if (done) return
      done = true
      if (mode === 'write') this.writer = false
      else this.readers--
      this.pump()
    }
  }

  /** Grant from the head of the queue while it is compatible with what is held. */
  private pump(): void {
    while (this.queue.length > 0) {
      const head = this.queue[0] as Waiter
      if (!this.free(head.mode)) return
      this.queue.shift()
      head.grant()
    }
  }
}
