/**
 * CONNECT tunnels when the addon cannot be used (not built, another
 * version): the proxy keeps every tunnel on its JavaScript relay, and the
 * cases of tunnel-cases.ts hold there too. The loader is replaced by one
 * that fails as src/native/load.ts does for a missing addon.
 */
import { describe, expect, it, vi } from 'vitest'
import { describeWhere, unless } from '../../helpers/requirements.js'
import { relayThreads, tunnelCases } from './tunnel-cases.js'

vi.mock('../../../src/native/load.js', async () => {
  const { LoadError } = await import('../../../src/errors.js')
  return {
    loadNative: () => {
      throw new LoadError('no cordon native addon for this platform', ['build/Release'], 'run `npm rebuild cordon`')
    },
  }
})

describeWhere(unless(process.platform === 'linux', 'counts descriptors and threads in /proc'), 'CONNECT tunnels on the JavaScript relay (addon unusable)', () => {
  describe('cases', () => tunnelCases())

  it('the native relay never started', () => {
    expect(relayThreads()).toBe(0)
  })
})
