/**
 * A kept sandbox is made from the very environment read its key came from
 * (src/orchestrator/sandbox-pool.ts): never from a second read of
 * process.env, which a worker started with SHARE_ENV may change in between
 * — then a sandbox made with one environment would be kept under the key of
 * another and handed out for it (red team). The backend's read is replaced
 * here by one that differs from process.env, so a second read would show.
 */
import { describe, expect, it, vi } from 'vitest'
import { envRecordingPool, withVariable } from './env-pool.js'

const read = vi.hoisted(() => ({ key: 'K=from-the-read\0', variables: () => ({ K: 'from-the-read' }) }))
vi.mock('../../../src/platform/index.js', async (original) => ({
  ...(await original<typeof import('../../../src/platform/index.js')>()),
  hostFacts: () => ({ environment: () => read, pathKinds: () => [] }),
}))

describe('SandboxPool and the environment read', () => {
  it('makes the sandbox from the variables of the read that gave the key, not from process.env again', async () => {
    const { SandboxPool } = await import('../../../src/orchestrator/sandbox-pool.js')
    const { pool, made } = envRecordingPool(SandboxPool)
    withVariable('K', 'live', () => pool.acquire({ cwd: '/work/ws' }).release())
    expect(made).toHaveLength(1)
    expect(made[0]!.env).toEqual({ K: 'from-the-read' })
    // The same read again: the same sandbox.
    pool.acquire({ cwd: '/work/ws' }).release()
    expect(made).toHaveLength(1)
  })
})
