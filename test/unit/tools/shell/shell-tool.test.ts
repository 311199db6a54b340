/**
 * The `shell` tool: the outcome of orchestrator.run(shellRuntime, …) as
 * the model reads it. A failed command, a forbidden one, a refused
 * approval and a sandbox denial are results (success false); only a
 * sandbox that cannot be set up is an error (ToolSetupError).
 */
import { describe, expect, it } from 'vitest'
import { SetupError, shellTool, ToolRouter, ToolSetupError, type ToolOutput } from '../../../../src/index.js'
import type { Script } from '../../orchestrator/fake-sandbox.js'
import { fnCall, setupDispatch } from '../harness.js'

async function callShell(args: unknown, orch: Parameters<typeof setupDispatch>[1] = {}, script: Script = () => ({})) {
  const router = new ToolRouter([shellTool()])
  const { dispatcher, fake } = setupDispatch({}, orch, script)
  const r = await dispatcher.handleResponse(router.buildStep(), [fnCall('1', 'shell', args)])
  return { output: r.outputs[0]?.output as ToolOutput, fake }
}

describe('shell tool', () => {
  it('a command that ran: exit code and output, success only for exit 0', async () => {
    expect((await callShell({ command: ['ls'] }, {}, () => ({ stdout: 'a\nb\n' }))).output).toEqual({ kind: 'text', success: true, text: 'exit code: 0\noutput:\na\nb\n' })
    const failed = await callShell({ command: ['ls', 'nope'] }, {}, () => ({ exitCode: 2, stderr: 'ls: nope: No such file or directory\n' }))
    expect(failed.output).toMatchObject({ kind: 'text', success: false, text: expect.stringMatching(/^exit code: 2\n/) })
  })

  it('a refused approval is a result the model reads, and nothing ran', async () => {
    const { output, fake } = await callShell({ command: ['rm', '-rf', 'build'] }, { approvalMode: 'untrusted', onApproval: () => 'denied' })
    expect(output).toMatchObject({ kind: 'text', success: false, text: expect.stringMatching(/^not run \(denied\)/) })
    expect(fake.runs).toHaveLength(0)
  })

  it('a forbidden request is a result too', async () => {
    const { output } = await callShell({ command: ['make'], sandbox_permissions: 'require_escalated' }, { approvalMode: 'never' })
    expect(output).toMatchObject({ kind: 'text', success: false, text: expect.stringMatching(/^not run \(forbidden\)/) })
  })

  it('a sandbox denial is named in the result', async () => {
    const { output } = await callShell({ command: ['touch', '/etc/x'] }, { escalateOnFailure: false }, () => ({ exitCode: 1, stderr: "touch: cannot touch '/etc/x': Permission denied\n" }))
    expect(output).toMatchObject({ kind: 'text', success: false, text: expect.stringContaining('sandbox denied: write of') })
  })

  it('bad arguments are a result the model can correct', async () => {
    const { output } = await callShell({ cmd: 'ls' })
    expect(output).toMatchObject({ kind: 'text', success: false, text: expect.stringMatching(/^bad arguments/) })
  })

  it('timeout_ms longer than a timer can wait is a result the model can correct, and nothing ran', async () => {
    const { output, fake } = await callShell({ command: ['sleep', '1'], timeout_ms: 2 ** 31 })
    expect(output).toMatchObject({ kind: 'text', success: false, text: expect.stringMatching(/^bad arguments: at most 2147483647 ms/) })
    expect(fake.runs).toHaveLength(0)
  })

  it('a sandbox that cannot be set up is a ToolSetupError, not a result', async () => {
    const err = await callShell({ command: ['ls'] }, {}, () => {
      throw new SetupError('landlock', 'landlock_create_ruleset', 38, 'ENOSYS')
    }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ToolSetupError)
    expect(err).toMatchObject({ code: 'E_TOOL_SETUP', tool: 'shell', setup: { code: 'E_SETUP' } })
  })
})
