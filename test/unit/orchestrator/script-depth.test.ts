/**
 * A script that nests deeper than the splitter walks (~15,000 chained
 * `&&`, under the 64 KB length bound) is a typed PolicyError — what
 * exec() and assess() promise to reject with — never a RangeError from a
 * stack overflow. Nothing runs.
 */
import { describe, expect, it } from 'vitest'
import { createOrchestrator } from '../../../src/orchestrator/index.js'
import { fakeSandboxes } from './fake-sandbox.js'
import { dir } from './harness.js'

const ws = dir('depth')

describe('deeply nested scripts', () => {
  const chain = (op: string, n: number) => Array.from({ length: n }, () => 'ls').join(op)

  it.each(['&&', '||'])('15,000 commands chained with %s: decided (the reader does not recurse), never a RangeError', async (op) => {
    const script = chain(op, 15_000)
    expect(script.length).toBeLessThan(64 * 1024)
    const fake = fakeSandboxes(() => ({}), ws)
    const orch = createOrchestrator({ sandbox: { cwd: ws }, createSandbox: fake.create, onApproval: () => 'approved' })
    const assessed = await orch.assess({ command: ['bash', '-lc', script] })
    expect(assessed).toBeDefined()
  })

  it('flat lists (; and |) of the same length are still split', async () => {
    const fake = fakeSandboxes(() => ({}), ws)
    const orch = createOrchestrator({ sandbox: { cwd: ws }, createSandbox: fake.create })
    for (const op of [';', '|']) {
      const a = await orch.assess({ command: ['bash', '-lc', chain(op, 15_000)] })
      expect(a.policy.opaque).toBe(false)
      expect(a.policy.segments).toHaveLength(15_000)
    }
  })
})
