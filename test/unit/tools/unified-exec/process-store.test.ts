/**
 * The unified-exec process store: bounded, least recently used pruned
 * first, exited sessions before live ones, the most recent never; places
 * reserved by calls still starting count against the bound; one
 * interaction at a time per session, sessions in parallel.
 */
import { describe, expect, it } from 'vitest'
import { InteractionLock } from '../../../../src/tools/unified-exec/interaction-lock.js'
import { MAX_SESSIONS, PROTECTED_RECENT } from '../../../../src/tools/unified-exec/limits.js'
import { ProcessStore, type StoredProcess } from '../../../../src/tools/unified-exec/process-store.js'

class FakeProcess implements StoredProcess {
  exited = false
  terminated = 0
  constructor(readonly name: string) {}
  terminate(): void {
    this.terminated++
    this.exited = true
  }
}

function fill(store: ProcessStore<FakeProcess>, n: number): { id: number; p: FakeProcess }[] {
  return Array.from({ length: n }, (_, i) => {
    const p = new FakeProcess(`p${i}`)
    return { id: store.add(p).entry.id, p }
  })
}

describe('ProcessStore', () => {
  it('holds MAX_SESSIONS (64) sessions; the 65th prunes the least recently used and terminates it', () => {
    const store = new ProcessStore<FakeProcess>()
    const all = fill(store, MAX_SESSIONS)
    expect(store.size).toBe(64)
    expect(all.every((e) => e.p.terminated === 0)).toBe(true)
    const { pruned } = store.add(new FakeProcess('new'))
    expect(store.size).toBe(64)
    expect(pruned?.id).toBe(all[0]!.id)
    expect(all[0]!.p.terminated).toBe(1)
    expect(store.use(all[0]!.id)).toBeUndefined()
  })

  it('reserved places have a bound of their own and prune nothing; storing the session prunes when the store is full', () => {
    const store = new ProcessStore<FakeProcess>({ max: 4, protectedRecent: 2 })
    const all = fill(store, 4)
    const places = [store.reserve()!, store.reserve()!, store.reserve()!, store.reserve()!]
    expect(store.starting).toBe(4)
    expect(store.reserve()).toBeUndefined() // 4 calls starting: the next is refused
    expect(all.every((e) => e.p.terminated === 0)).toBe(true) // reserving ended no session
    places[3]!.release() // a quick command, or a denied one: nothing stored, nothing ended
    expect(store.size).toBe(4)
    const { entry, pruned } = places[0]!.add(new FakeProcess('started'))
    expect(pruned?.id).toBe(all[0]!.id) // full: the least recently used outside the 2 protected
    expect(all[0]!.p.terminated).toBe(1)
    expect(store.use(entry.id)?.process.name).toBe('started')
    expect(store.starting).toBe(2)
    expect(() => places[0]!.add(new FakeProcess('twice'))).toThrow(/used once/)
    expect(store.reserve()).toBeDefined()
  })

  it('prefers an exited session over a less recently used live one', () => {
    const store = new ProcessStore<FakeProcess>({ max: 10, protectedRecent: 2 })
    const all = fill(store, 10)
    all[5]!.p.exited = true
    const { pruned } = store.add(new FakeProcess('new'))
    expect(pruned?.id).toBe(all[5]!.id)
    expect(all[0]!.p.terminated).toBe(0)
  })

  it('never prunes the PROTECTED_RECENT (8) most recently used, even when only they have exited', () => {
    const store = new ProcessStore<FakeProcess>()
    const all = fill(store, MAX_SESSIONS)
    // The 8 newest have exited; all older ones are live: a live one goes.
    for (const e of all.slice(-PROTECTED_RECENT)) e.p.exited = true
    const { pruned } = store.add(new FakeProcess('new'))
    expect(pruned?.id).toBe(all[0]!.id)
    for (const e of all.slice(-PROTECTED_RECENT)) expect(store.use(e.id)).toBeDefined()
  })

  it('use() makes a session recent: the next prune takes another', () => {
    const store = new ProcessStore<FakeProcess>({ max: 3, protectedRecent: 1 })
    const [a, b, c] = fill(store, 3)
    store.use(a!.id)
    expect(store.add(new FakeProcess('d')).pruned?.id).toBe(b!.id)
    expect(store.ids()).toEqual([c!.id, a!.id, expect.any(Number)])
  })

  it('ids are never reused; remove() forgets without terminating; terminateAll() ends every one', () => {
    const store = new ProcessStore<FakeProcess>({ max: 3, protectedRecent: 1 })
    const [a, b] = fill(store, 2)
    store.remove(a!.id)
    expect(a!.p.terminated).toBe(0)
    const c = store.add(new FakeProcess('c')).entry
    expect(c.id).not.toBe(a!.id)
    expect(store.use(a!.id)).toBeUndefined()
    store.terminateAll()
    expect(b!.p.terminated).toBe(1)
    expect(c.process.terminated).toBe(1)
    expect(store.size).toBe(0)
  })

  it('refuses limits that could not protect anything sensible', () => {
    expect(() => new ProcessStore({ max: 0, protectedRecent: 0 })).toThrow(RangeError)
    expect(() => new ProcessStore({ max: 4, protectedRecent: 4 })).toThrow(RangeError)
  })
})

describe('InteractionLock', () => {
  const tick = (ms: number) => new Promise((r) => setTimeout(r, ms))

  it('one holder at a time per lock, in call order; a holder that throws lets the next one in', async () => {
    const lock = new InteractionLock()
    const log: string[] = []
    const job = (name: string, ms: number, fail = false) =>
      lock.run(async () => {
        log.push(`${name}+`)
        await tick(ms)
        log.push(`${name}-`)
        if (fail) throw new Error(name)
        return name
      })
    const results = await Promise.allSettled([job('a', 30, true), job('b', 5), job('c', 1)])
    expect(log).toEqual(['a+', 'a-', 'b+', 'b-', 'c+', 'c-'])
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled'])
    expect(lock.pending).toBe(0)
  })

  it('two locks (two sessions) run at the same time', async () => {
    const [x, y] = [new InteractionLock(), new InteractionLock()]
    let inside = 0
    let most = 0
    const job = (l: InteractionLock) =>
      l.run(async () => {
        most = Math.max(most, ++inside)
        await tick(20)
        inside--
      })
    await Promise.all([job(x), job(y)])
    expect(most).toBe(2)
  })
})
