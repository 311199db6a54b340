/**
 * One interaction at a time per process: two write_stdin calls for the same
 * session would interleave their keystrokes and each read the other's
 * reply. Calls for different sessions each have their own lock, so they run
 * in parallel. A lock is a promise chain: FIFO, no polling, and a holder that
 * throws still lets the next one in.
 */
export class InteractionLock {
  private tail: Promise<void> = Promise.resolve()
  private waiting = 0

  /** Calls holding or waiting for the lock. */
  get pending(): number {
    return this.waiting
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    const before = this.tail
    let release!: () => void
    this.tail = new Promise<void>((r) => (release = r))
    this.waiting++
    try {
      await before
      return await fn()
    } finally {
      this.waiting--
      release()
    }
  }
}
