/**
 * The Linux HostFacts off Node's main thread: a worker's process.env is a
 * copy of its own, so the environ block would describe another environment
 * — the key declines and the orchestrator's pool reads process.env instead.
 * (Each test file runs in a forked process, on its main thread: the worker
 * is simulated; the native reads are tested in test/native/host-facts.test.ts.)
 */
import { describe, expect, it, vi } from 'vitest'

vi.mock('node:worker_threads', async (original) => ({ ...(await original<typeof import('node:worker_threads')>()), isMainThread: false }))

describe('linuxHostFacts in a worker thread', () => {
  it('environmentKey declines without reading environ', async () => {
    const { linuxHostFacts } = await import('../../../../src/platform/linux/host-facts.js')
    const environBlock = vi.fn(() => 'A=1\0')
    const facts = linuxHostFacts(() => ({ environBlock, lstatKinds: () => new Uint8Array() }))
    expect(facts.environmentKey()).toBeUndefined()
    expect(environBlock).not.toHaveBeenCalled()
  })

  it("the orchestrator's pool then keys on process.env itself: a change is still another sandbox", async () => {
    const { SandboxPool } = await import('../../../../src/orchestrator/sandbox-pool.js')
    const made: { env?: Record<string, string | undefined> }[] = []
    const pool = new SandboxPool((options) => {
      const sb = { env: options.env, forgetPaths: () => {}, privateTmp: () => undefined, close: () => {} }
      made.push(sb)
      return sb as never
    }, 50)
    pool.acquire({ cwd: '/work/ws' }).release()
    pool.acquire({ cwd: '/work/ws' }).release()
    expect(made).toHaveLength(1)
    process.env.CORDON_WORKER_KEY_TEST = 'x'
    try {
      pool.acquire({ cwd: '/work/ws' }).release()
    } finally {
      delete process.env.CORDON_WORKER_KEY_TEST
    }
    expect(made).toHaveLength(2)
    expect(made[1]!.env?.CORDON_WORKER_KEY_TEST).toBe('x')
  })
})
