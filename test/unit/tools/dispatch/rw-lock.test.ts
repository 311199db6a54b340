import { describe, expect, it } from 'vitest'
import { AbortError } from '../../../../src/index.js'
import { RwLock } from '../../../../src/tools/dispatch/rw-lock.js'

const flush = () => new Promise((r) => setImmediate(r))

describe('RwLock', () => {
  it('shares reads, serializes writes, and serves in arrival order', async () => {
    const lock = new RwLock()
    const got: string[] = []
    const r1 = await lock.acquire('read')
    const r2 = await lock.acquire('read')
    const w = lock.acquire('write').then((rel) => (got.push('w'), rel))
    const r3 = lock.acquire('read').then((rel) => (got.push('r3'), rel))
    await flush()
    expect(got).toEqual([])
    r1()
    await flush()
    expect(got).toEqual([])
    r2()
    await flush()
    expect(got).toEqual(['w'])
    ;(await w)()
    await flush()
    expect(got).toEqual(['w', 'r3'])
    ;(await r3)()
  })

  it('a waiter whose signal aborts leaves the queue with an AbortError and lets the next one in', async () => {
    const lock = new RwLock()
    const held = await lock.acquire('write')
    const ac = new AbortController()
    const waiting = lock.acquire('write', ac.signal)
    const next = lock.acquire('read')
    ac.abort()
    await expect(waiting).rejects.toBeInstanceOf(AbortError)
    held()
    const rel = await next
    rel()
    rel() // a second release is ignored
    const again = await lock.acquire('write')
    again()
  })
})
