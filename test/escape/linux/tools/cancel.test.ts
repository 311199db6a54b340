/**
 * Cancellation through the tool layer with the real sandbox: a `shell`
 * call whose command left a background process running is aborted; the
 * call's output is `aborted`, and every process of the command (the
 * background one included: the sandbox kills the process group) is gone
 * before the output is final. The same command unaborted shows the
 * background process is really there. Runs in both modes.
 */
import { afterAll, expect, it } from 'vitest'
import { createOrchestrator } from '../../../../src/orchestrator/index.js'
import { Dispatcher, shellTool, ToolRouter, type ResponseItem } from '../../../../src/index.js'
import { dead, pidsWithArg } from '../../../helpers/processes.js'
import { describeModes, removeTempDirs, tempDir } from '../orchestrator/env.js'

afterAll(removeTempDirs)


async function until(check: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) if (check()) return true
  return check()
}

function call(id: string, command: string[]): ResponseItem {
  return { type: 'function_call', call_id: id, name: 'shell', arguments: JSON.stringify({ command, timeout_ms: 60_000 }), status: 'completed' }
}

describeModes((mode) => {
  it('an aborted shell call reports aborted and its process group is gone', async () => {
    const ws = tempDir('tools-cancel')
    const orchestrator = createOrchestrator({ sandbox: { cwd: ws, mode }, onApproval: () => 'approved' })
    const router = new ToolRouter([shellTool()])
    const dispatcher = new Dispatcher({ orchestrator })
    // A unique sleep length names the background process on the host.
    const token = `${4000 + Math.floor(Math.random() * 999)}.${process.pid}`
    const ac = new AbortController()
    const handled = dispatcher.handleResponse(router.buildStep(), [call('1', ['sh', '-c', `sleep ${token} & echo started; wait`])], ac.signal)
    expect(await until(() => pidsWithArg(token).length > 0, 15_000)).toBe(true)
    const running = pidsWithArg(token)
    ac.abort()
    const r = await handled
    expect(r.outputs[0]?.output.kind).toBe('aborted')
    expect(r.aborted).toBe(true)
    // Gone (or a zombie awaiting init) by the time the output is final.
    expect(running.every(dead)).toBe(true)
  }, 30_000)

  it('unaborted, the same kind of call completes and the model reads the exit code and output', async () => {
    const ws = tempDir('tools-ok')
    const orchestrator = createOrchestrator({ sandbox: { cwd: ws, mode }, onApproval: () => 'approved' })
    const router = new ToolRouter([shellTool()])
    const dispatcher = new Dispatcher({ orchestrator })
    const r = await dispatcher.handleResponse(router.buildStep(), [call('1', ['sh', '-c', 'sleep 0.2 & echo started; wait; echo done'])])
    expect(r.outputs[0]?.output).toEqual({ kind: 'text', success: true, text: 'exit code: 0\noutput:\nstarted\ndone\n' })
  }, 30_000)
})
