/**
 * A run's signal (src/orchestrator/linked-signal.ts): aborted by the
 * orchestrator's stop or by the run's own signal, with that reason; after
 * detach() neither reaches it (and the long-lived stop signal keeps no
 * listener of a finished run).
 */
import { getEventListeners } from 'node:events'
import { describe, expect, it } from 'vitest'
import { linkSignals } from '../../../src/orchestrator/linked-signal.js'

describe('linkSignals', () => {
  it('aborts with whichever source aborts first, with its reason', () => {
    for (const which of ['stop', 'own'] as const) {
      const stop = new AbortController()
      const own = new AbortController()
      const link = linkSignals(stop.signal, own.signal)
      expect(link.signal.aborted).toBe(false)
      const reason = new Error(which)
      ;(which === 'stop' ? stop : own).abort(reason)
      expect(link.signal.aborted).toBe(true)
      expect(link.signal.reason).toBe(reason)
    }
  })

  it('starts aborted when a source already is', () => {
    const own = new AbortController()
    own.abort('before')
    const link = linkSignals(new AbortController().signal, own.signal)
    expect(link.signal.aborted).toBe(true)
    expect(link.signal.reason).toBe('before')
  })

  it('after detach, neither source reaches it, and neither keeps a listener', () => {
    const stop = new AbortController()
    const own = new AbortController()
    const link = linkSignals(stop.signal, own.signal)
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(1)
    link.detach()
    link.detach()
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0)
    expect(getEventListeners(own.signal, 'abort')).toHaveLength(0)
    stop.abort()
    own.abort()
    expect(link.signal.aborted).toBe(false)
  })

  it('without a signal of its own, the run has the stop signal itself', () => {
    const stop = new AbortController()
    const link = linkSignals(stop.signal, undefined)
    expect(link.signal).toBe(stop.signal)
    link.detach()
    stop.abort()
    expect(link.signal.aborted).toBe(true)
  })
})
