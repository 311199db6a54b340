/**
 * The Linux HostFacts off Node's main thread: a worker's process.env is a
 * copy of its own, so the environ block would describe another environment
 * — the key declines and the orchestrator's pool reads process.env instead.
 * (Each test file runs in a forked process, on its main thread: the worker
 * is simulated; the native reads are tested in test/native/host-facts.test.ts.)
 */
import { describe, expect, it, vi } from 'vitest'
import { envRecordingPool, withVariable } from '../../orchestrator/env-pool.js'

vi.mock('node:worker_threads', async (original) => ({ ...(await original<typeof import('node:worker_threads')>()), isMainThread: false }))

describe('variablesOf: an environ block as process.env shows it', () => {
  it('splits at the first `=`, skips entries without one, keeps the first of two names, reads UTF-8', async () => {
    const { variablesOf } = await import('../../../../src/platform/linux/host-facts.js')
    const utf8 = Buffer.from('☃=é', 'utf8').toString('latin1')
    expect(variablesOf(`A=1\0B=x=y\0NOEQUALS\0A=2\0E=\0${utf8}\0`)).toEqual({ A: '1', B: 'x=y', E: '', '☃': 'é' })
    expect(variablesOf('')).toEqual({})
  })
})

describe('linuxHostFacts in a worker thread', () => {
  it('environment() declines without reading environ', async () => {
    const { linuxHostFacts } = await import('../../../../src/platform/linux/host-facts.js')
    const environBlock = vi.fn(() => 'A=1\0')
    const facts = linuxHostFacts(() => ({ environBlock, lstatKinds: () => new Uint8Array() }))
    expect(facts.environment()).toBeUndefined()
    expect(environBlock).not.toHaveBeenCalled()
  })

  it("the orchestrator's pool then keys on process.env itself: a change is still another sandbox", async () => {
    const { SandboxPool } = await import('../../../../src/orchestrator/sandbox-pool.js')
    const { pool, made } = envRecordingPool(SandboxPool)
    pool.acquire({ cwd: '/work/ws' }).release()
    pool.acquire({ cwd: '/work/ws' }).release()
    expect(made).toHaveLength(1)
    withVariable('CORDON_WORKER_KEY_TEST', 'x', () => pool.acquire({ cwd: '/work/ws' }).release())
    expect(made).toHaveLength(2)
    expect(made[1]!.env?.CORDON_WORKER_KEY_TEST).toBe('x')
  })
})
