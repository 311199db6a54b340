/**
 * The abort contract of exec() (issue 11, bug 4), the same as sandbox.run's:
 * an abort is data, never an exception. Wherever the signal fires — before
 * the decision, during a hook, while an approver thinks, while the command
 * runs — exec resolves with `status: 'canceled'`, `isCanceled: true`, and
 * what was known and what ran by then. Bad input still rejects.
 */
import { getEventListeners } from 'node:events'
import { afterAll, describe, expect, it } from 'vitest'
import { removeTempDirs, tempDir } from '../../helpers/temp.js'
import { PolicyError } from '../../../src/errors.js'
import { createOrchestrator, type OrchestratorOptions } from '../../../src/orchestrator/index.js'
import { fakeSandboxes, type Script } from './fake-sandbox.js'

afterAll(removeTempDirs)
const ws = tempDir('orch-abort-')

/** `sleep` runs until its signal aborts, then reports a canceled run, as sandbox.run does; the rest succeeds at once. */
const sleeper: Script = ({ argv, signal }) =>
  argv[0] === 'sleep'
    ? new Promise((resolve) => {
        const stop = () => resolve({ isCanceled: true, exitCode: null, signal: 'SIGKILL' })
        if (signal?.aborted) stop()
        else signal?.addEventListener('abort', stop)
      })
    : {}

function setup(opts: Partial<OrchestratorOptions> = {}) {
  const fake = fakeSandboxes(sleeper, ws)
  const orch = createOrchestrator({ sandbox: { profile: 'workspace-write', cwd: ws }, onApproval: () => 'approved', createSandbox: fake.create, ...opts })
  return { orch, fake }
}

const later = (ms: number, fn: () => void) => setTimeout(fn, ms)

describe('orchestrator.exec: an abort resolves canceled', () => {
  it("a finished exec leaves no listener on the caller's signal; abortAll still cancels the next one", async () => {
    const { orch } = setup()
    const ac = new AbortController()
    for (let i = 0; i < 5; i++) expect((await orch.exec({ command: ['ls'], signal: ac.signal })).status).toBe('completed')
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0)
    const running = orch.exec({ command: ['sleep', '10'], signal: ac.signal })
    later(20, () => orch.abortAll('stop everything'))
    expect(await running).toMatchObject({ status: 'canceled', isCanceled: true })
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0)
  })

  it('a signal aborted before the call: canceled, nothing decided or run', async () => {
    const { orch, fake } = setup()
    const o = await orch.exec({ command: ['ls'], signal: AbortSignal.abort() })
    expect(o).toMatchObject({ status: 'canceled', isCanceled: true, attempts: [] })
    expect(o.policy).toBeUndefined()
    expect(fake.runs).toHaveLength(0)
  })

  it('an abort while a PreToolUse hook runs', async () => {
    const ac = new AbortController()
    const { orch, fake } = setup({ hooks: { preToolUse: [() => new Promise((resolve) => later(200, () => resolve(undefined)))] } })
    later(20, () => ac.abort())
    const o = await orch.exec({ command: ['ls'], signal: ac.signal })
    expect(o).toMatchObject({ status: 'canceled', isCanceled: true, attempts: [] })
    expect(fake.runs).toHaveLength(0)
  })

  it('an abort while the approver is asked: canceled, the approver sees the signal, nothing runs', async () => {
    const ac = new AbortController()
    let approverSignal: AbortSignal | undefined
    const { orch, fake } = setup({ onApproval: (_r, { signal }) => ((approverSignal = signal), new Promise(() => {})) })
    later(20, () => ac.abort())
    const o = await orch.exec({ command: ['rm', '-f', 'x'], signal: ac.signal })
    expect(o).toMatchObject({ status: 'canceled', isCanceled: true, attempts: [] })
    expect(o.reason).toMatch(/abort/)
    expect(approverSignal?.aborted).toBe(true)
    expect(fake.runs).toHaveLength(0)
  })

  it('an abort while the command runs: canceled, with the stopped attempt and its result', async () => {
    const ac = new AbortController()
    const { orch, fake } = setup()
    later(20, () => ac.abort())
    const o = await orch.exec({ command: ['sleep', '1000'], signal: ac.signal, sandboxPermissions: 'use_default' })
    expect(o).toMatchObject({ status: 'canceled', isCanceled: true, result: { isCanceled: true, exitCode: null } })
    expect(o.attempts).toHaveLength(1)
    expect(o.attempts[0]!.result?.isCanceled).toBe(true)
    expect(o.denials).toEqual([]) // a canceled run is no evidence of a denial
    expect(fake.runs).toHaveLength(1)
  })

  it('abortAll() cancels what is in flight; later execs complete with isCanceled false', async () => {
    const { orch } = setup()
    const running = orch.exec({ command: ['sleep', '1000'] })
    later(20, () => orch.abortAll('shutting down'))
    expect(await running).toMatchObject({ status: 'canceled', isCanceled: true })
    expect(await orch.exec({ command: ['ls'] })).toMatchObject({ status: 'completed', isCanceled: false })
  })

  it('bad input still rejects with PolicyError, aborted or not', async () => {
    const { orch } = setup()
    await expect(orch.exec({ command: [], signal: AbortSignal.abort() })).rejects.toBeInstanceOf(PolicyError)
  })
})
