/**
 * Issue 11, bug 2, as an agent runtime meets it: `orchestrator.warmUp()` at
 * start-up keeps the event loop running, an exec made while it is in flight
 * waits for the same load instead of compiling, and once it is done the
 * first `bash -lc` decision compiles nothing. Ratios against a synchronous
 * compile in this process (../exec-policy/shell/compile-timing.ts).
 */
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { removeTempDirs, tempDir } from '../../helpers/temp.js'
import { createOrchestrator } from '../../../src/orchestrator/index.js'
import { WARM_UP_SCRIPTS } from '../../../src/exec-policy/shell/warm-up-scripts.js'
import { compileOnThisThread, optimisingCompilerOnly, startTicks } from '../exec-policy/shell/compile-timing.js'
import { fakeSandboxes } from './fake-sandbox.js'

optimisingCompilerOnly()

afterAll(removeTempDirs)
const ws = tempDir('orch-warm-')

describe('orchestrator.warmUp()', () => {
  it('runs while the loop keeps ticking; an exec in flight awaits it; the first decision after it compiles nothing', async () => {
    const fake = fakeSandboxes(() => ({ stdout: 'ok\n' }), ws)
    const ticks = startTicks(10)
    const orch = createOrchestrator({ sandbox: { cwd: ws }, createSandbox: fake.create, approvalMode: 'never' })
    const warm = orch.warmUp()
    const duringWarmUp = orch.exec({ command: ['bash', '-lc', 'git status && ls'] })
    await warm
    const inFlight = await duringWarmUp
    const during = ticks.stop()

    const start = performance.now()
    const after = await orch.assess({ command: ['bash', '-lc', 'git log -n 3 | head -n 5'] })
    const firstDecision = performance.now() - start

    const reference = compileOnThisThread(WARM_UP_SCRIPTS)
    const report = `sync compile ${reference.ms.toFixed(0)} ms; warm-up: ${during.count} ticks, longest gap ${during.maxGap.toFixed(0)} ms; next decision ${firstDecision.toFixed(1)} ms`
    console.log(report)
    expect(inFlight.status).toBe('completed')
    expect(inFlight.policy?.decision).toBe('allow')
    expect(after.policy.segments.map((s) => s.argv[0])).toEqual(['git', 'head'])
    expect(during.count, report).toBeGreaterThan(10)
    expect(during.maxGap * 4, report).toBeLessThan(reference.ms)
    expect(firstDecision * 20, report).toBeLessThan(reference.ms)
  })

  it('decides after warm-up as it did during it', async () => {
    const fake = fakeSandboxes(() => ({}), ws)
    const orch = createOrchestrator({ sandbox: { cwd: ws }, createSandbox: fake.create })
    const command = ['bash', '-lc', 'git status && rm -rf build']
    const [during] = await Promise.all([orch.assess({ command }), orch.warmUp()])
    const after = await orch.assess({ command })
    expect(after).toEqual(during)
    expect(after.policy.decision).toBe('prompt')
  })

  it('rejects with the rules file error a first exec would have met', async () => {
    const orch = createOrchestrator({ rules: [join(ws, 'missing.rules')], createSandbox: fakeSandboxes(() => ({}), ws).create })
    await expect(orch.warmUp()).rejects.toMatchObject({ name: 'PolicyError' })
  })
})
