/**
 * A SandboxPool whose stand-in sandboxes record only the environment each
 * was made from: for the tests of how the pool reads the environment
 * (sandbox-pool-read.test.ts, platform/linux/host-facts.test.ts), which
 * import the pool after mocking what it reads — so the class is passed in.
 */
import type { SandboxPool } from '../../../src/orchestrator/sandbox-pool.js'

export interface EnvRecord {
  env?: Record<string, string | undefined>
}

export function envRecordingPool(Pool: typeof SandboxPool): { pool: SandboxPool; made: EnvRecord[] } {
  const made: EnvRecord[] = []
  const pool = new Pool((options) => {
    const sb = { env: options.env, recheckPaths: () => {}, privateTmp: () => undefined, close: () => {} }
    made.push(sb)
    return sb as never
  }, 50)
  return { pool, made }
}

/** Run `fn` with process.env[name] set to `value`, then remove the variable again. */
export function withVariable(name: string, value: string, fn: () => void): void {
  process.env[name] = value
  try {
    fn()
  } finally {
    delete process.env[name]
  }
}
