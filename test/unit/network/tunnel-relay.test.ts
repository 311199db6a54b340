/**
 * CONNECT tunnels carried by the addon's native relay (native/linux/relay.c)
 * after the hand-over in src/network/proxy/native-relay.ts: the cases of
 * tunnel-cases.ts, and proof that the native relay, not the JavaScript one,
 * carried them (its thread exists, one for all tunnels).
 */
import { describe, expect, it } from 'vitest'
import { describeWhere, unless } from '../../helpers/requirements.js'
import { relayThreads, tunnelCases } from './tunnel-cases.js'

describeWhere(unless(process.platform === 'linux', 'the native relay is Linux-only (splice, epoll); elsewhere tunnel-fallback.test.ts covers the tunnels'), 'CONNECT tunnels on the native relay', () => {
  it('no relay thread before the first tunnel (started on first use)', () => {
    expect(relayThreads()).toBe(0)
  })

  describe('cases', () => tunnelCases())

  it('one relay thread carried them all', () => {
    expect(relayThreads()).toBe(1)
  })
})
