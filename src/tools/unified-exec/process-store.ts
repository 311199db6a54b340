/**
 * The live sessions of one agent: bounded (limits.ts MAX_SESSIONS), least
 * recently used pruned first to make room for a new one — preferring
 * sessions whose process has exited, and never one of the PROTECTED_RECENT
 * most recently used (what the model is working with right now). A pruned
 * live session is terminated: its process group is killed, as on timeout.
 *
 * The bound counts calls still starting too: exec_command reserves a place
 * before its command starts (reserve()), and a reservation counts as a
 * session until it becomes one or is released. Past the bound, with no
 * session left to prune, a new call is refused: one model response with
 * 200 parallel calls starts 64 sandboxes, not 200.
 *
 * Ids are small integers, never reused within a store: a stale id from the
 * model finds nothing rather than another command.
 */
import { InteractionLock } from './interaction-lock.js'
import { MAX_SESSIONS, PROTECTED_RECENT } from './limits.js'

/** What the store needs of a session. */
export interface StoredProcess {
  /** The process has ended (its output may still be unread). */
  readonly exited: boolean
  /** Stop the process and everything it started; idempotent. */
  terminate(): void
}

export interface StoreEntry<P extends StoredProcess> {
  readonly id: number
  readonly process: P
  readonly lock: InteractionLock
}

export interface StoreLimits {
  max: number
  protectedRecent: number
}

/** A place kept for a session being started: add() makes it the session, release() gives it back; once either. */
export interface Reservation<P extends StoredProcess> {
  /** The session ended to make room for this one, if any. */
  readonly pruned: StoreEntry<P> | undefined
  add(process: P): StoreEntry<P>
  release(): void
}

export class ProcessStore<P extends StoredProcess> {
  /** Insertion order is use order: a touched entry is moved to the end (most recent). */
  private readonly entries = new Map<number, StoreEntry<P>>()
  private nextId = 1000
  /** Places reserved by calls still starting. */
  private reserved = 0

  constructor(private readonly limits: StoreLimits = { max: MAX_SESSIONS, protectedRecent: PROTECTED_RECENT }) {
    if (!(limits.max >= 1 && limits.protectedRecent >= 0 && limits.protectedRecent < limits.max)) throw new RangeError('a store needs max >= 1 and 0 <= protectedRecent < max')
  }

  get size(): number {
    return this.entries.size
  }

  /** Sessions held plus places reserved: what the bound counts. */
  get occupied(): number {
    return this.entries.size + this.reserved
  }

  /** Add a session, pruning one first when the store is full; returns the new entry and what was pruned. */
  add(process: P): { entry: StoreEntry<P>; pruned: StoreEntry<P> | undefined } {
    const pruned = this.occupied >= this.limits.max ? this.prune() : undefined
    return { entry: this.insert(process), pruned }
  }

  /**
   * Keep a place for a session about to start, pruning one session when the
   * store is full; undefined when nothing can be pruned (the bound is taken
   * by calls still starting and the protected recent sessions).
   */
  reserve(): Reservation<P> | undefined {
    const pruned = this.occupied >= this.limits.max ? this.prune() : undefined
    if (this.occupied >= this.limits.max) return undefined
    this.reserved++
    let open = true
    const close = () => {
      if (!open) throw new Error('a reservation is used once')
      open = false
      this.reserved--
    }
    return {
      pruned,
      add: (process) => (close(), this.insert(process)),
      release: () => void (open && close()),
    }
  }

  /** The entry for `id`, marked as the most recently used; undefined when there is none. */
  use(id: number): StoreEntry<P> | undefined {
    const entry = this.entries.get(id)
    if (!entry) return undefined
    this.entries.delete(id)
    this.entries.set(id, entry)
    return entry
  }

  /** Forget a session (it ended and its last output was delivered). Does not terminate it. */
  remove(id: number): void {
    this.entries.delete(id)
  }

  ids(): number[] {
    return [...this.entries.keys()]
  }

  private insert(process: P): StoreEntry<P> {
    const entry: StoreEntry<P> = { id: this.nextId++, process, lock: new InteractionLock() }
    this.entries.set(entry.id, entry)
    return entry
  }

  /** Terminate and forget every session (the agent's session ends). */
  terminateAll(): void {
    for (const e of this.entries.values()) e.process.terminate()
    this.entries.clear()
  }

  /**
   * Make room for one: the least recently used exited session outside the
   * protected recent ones, else the least recently used live one there.
   */
  private prune(): StoreEntry<P> | undefined {
    const order = [...this.entries.values()]
    const candidates = order.slice(0, Math.max(0, order.length - this.limits.protectedRecent))
    const victim = candidates.find((e) => e.process.exited) ?? candidates[0]
    if (!victim) return undefined
    this.entries.delete(victim.id)
    victim.process.terminate()
    return victim
  }
}
