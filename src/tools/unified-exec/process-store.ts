/**
 * The live sessions of one agent: bounded (limits.ts MAX_SESSIONS), least
 * recently used pruned first to make room for a new one — preferring
 * sessions whose process has exited, and never one of the PROTECTED_RECENT
 * most recently used (what the model is working with right now). A pruned
 * live session is terminated: its process group is killed, as on timeout.
 *
 * Calls still starting have a bound of their own: exec_command reserves a
 * place before its command is decided (reserve()), and with MAX_SESSIONS
 * calls starting the next one is refused — one model response with 200
 * parallel calls starts 64 sandboxes, not 200. A reservation prunes
 * nothing: only a command still running after its window, stored with
 * add(), makes room, so a quick command or a denied call never ends a live
 * session (at most 2 × MAX_SESSIONS sandboxes exist for a moment).
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

/** A place kept for a session being started: add() stores the session (pruning one when the store is full), release() gives the place back; once either. */
export interface Reservation<P extends StoredProcess> {
  add(process: P): { entry: StoreEntry<P>; pruned: StoreEntry<P> | undefined }
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

  /** Places reserved by calls still starting. */
  get starting(): number {
    return this.reserved
  }

  /** Add a session, pruning one first when the store is full; returns the new entry and what was pruned. */
  add(process: P): { entry: StoreEntry<P>; pruned: StoreEntry<P> | undefined } {
    const pruned = this.entries.size >= this.limits.max ? this.prune() : undefined
    return { entry: this.insert(process), pruned }
  }

  /** Keep a place for a command about to be decided and started; undefined when `max` calls are starting already. */
  reserve(): Reservation<P> | undefined {
    if (this.reserved >= this.limits.max) return undefined
    this.reserved++
    let open = true
    const close = () => {
      if (!open) throw new Error('a reservation is used once')
      open = false
      this.reserved--
    }
    return {
      add: (process) => (close(), this.add(process)),
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
