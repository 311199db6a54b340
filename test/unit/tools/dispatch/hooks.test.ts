/**
 * Tool-level hooks: PreToolUse (continue / rewrite the input / block with
 * a reason, fail closed) → lifecycle start → handler → PostToolUse (add
 * context / replace the output / block it — after the side effect, which
 * stays done) → lifecycle end. In-process functions and external commands.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ToolRouter, type ToolEvent, type ToolHooks } from '../../../../src/index.js'
import { tempDir } from '../../../helpers/temp.js'
import { fnCall, fnTool, setupDispatch, text } from '../harness.js'

function setup(hooks: ToolHooks, events: ToolEvent[] = []) {
  const effects: unknown[] = []
  const tool = fnTool('write_note', async (input) => (effects.push(input), text(`wrote ${JSON.stringify(input)}`)))
  const router = new ToolRouter([tool])
  const { dispatcher } = setupDispatch({ hooks, onEvent: (e) => events.push(e), hookTimeoutMs: 5000 })
  const call = (args: unknown) => dispatcher.handleResponse(router.buildStep(), [fnCall('1', 'write_note', args)])
  return { effects, call, dispatcher }
}

describe('tool hooks', () => {
  it('PreToolUse block: the model gets the reason, the handler never runs, no lifecycle start', async () => {
    const events: ToolEvent[] = []
    const { effects, call } = setup({ preToolUse: [() => ({ decision: 'block', reason: 'notes are read-only today' })] }, events)
    const r = await call({ text: 'hi' })
    expect(r.outputs[0]?.output).toEqual({ kind: 'text', text: 'blocked: notes are read-only today', success: false })
    expect(effects).toEqual([])
    expect(events).toEqual([])
  })

  it('PreToolUse rewrite: later hooks and the handler see the new input', async () => {
    const seenBySecond: unknown[] = []
    const { effects, call } = setup({
      preToolUse: [() => ({ updatedInput: { text: 'rewritten' } }), (i) => (seenBySecond.push(i.input), undefined)],
    })
    await call({ text: 'original' })
    expect(seenBySecond).toEqual([{ text: 'rewritten' }])
    expect(effects).toEqual([{ text: 'rewritten' }])
  })

  it('a PreToolUse hook that throws blocks (fail closed) and is recorded', async () => {
    const { effects, call } = setup({ preToolUse: [() => { throw new Error('hook down') }] })
    const r = await call({})
    expect(r.outputs[0]?.output).toMatchObject({ kind: 'text', success: false, text: expect.stringContaining('hook down') })
    expect(r.hookErrors[0]).toContain('hook down')
    expect(effects).toEqual([])
  })

  it('PostToolUse adds context and replaces the output; the side effect already happened', async () => {
    const { effects, call } = setup({ postToolUse: [() => ({ additionalContext: 'note: reviewed' }), (i) => ({ replaceOutput: `[redacted] ${i.output.kind}` })] })
    const r = await call({ text: 'secret' })
    expect(effects).toEqual([{ text: 'secret' }])
    expect(r.outputs[0]).toMatchObject({ output: { kind: 'text', text: '[redacted] text', success: true }, context: ['note: reviewed'] })
  })

  it('PostToolUse block withholds the result and says the call already ran', async () => {
    const { effects, call } = setup({ postToolUse: [() => ({ decision: 'block', reason: 'contains a token' })] })
    const r = await call({ text: 'x' })
    expect(effects).toHaveLength(1)
    expect(r.outputs[0]?.output).toEqual({ kind: 'text', success: false, text: 'the result of this call was withheld by a PostToolUse hook: contains a token (the call itself already ran)' })
  })

  it('order: PreToolUse → start → handler → PostToolUse → end', async () => {
    const order: string[] = []
    const events: ToolEvent[] = []
    const tool = fnTool('t', async () => (order.push('handler'), text('ok')))
    const router = new ToolRouter([tool])
    const { dispatcher } = setupDispatch({
      hooks: { preToolUse: [() => (order.push('pre'), undefined)], postToolUse: [() => (order.push('post'), undefined)] },
      onEvent: (e) => (order.push(e.type), events.push(e)),
    })
    await dispatcher.handleResponse(router.buildStep(), [fnCall('1', 't')])
    expect(order).toEqual(['pre', 'start', 'handler', 'post', 'end'])
  })

  it('external command hooks get the tool name, call id and input as JSON, and may block or rewrite', async () => {
    const dir = tempDir('tool-hook-')
    const seen = join(dir, 'seen.json')
    const script = join(dir, 'hook.sh')
    writeFileSync(script, `#!/bin/sh\ncat > ${seen}\nprintf '%s' '{"hookSpecificOutput":{"updatedInput":{"text":"from hook"}}}'\n`, { mode: 0o755 })
    const { effects, call } = setup({ preToolUse: [{ command: ['/bin/sh', script] }] })
    await call({ text: 'model' })
    expect(effects).toEqual([{ text: 'from hook' }])
    const { readFileSync } = await import('node:fs')
    expect(JSON.parse(readFileSync(seen, 'utf8'))).toEqual({ hook_event_name: 'PreToolUse', tool_name: 'write_note', tool_use_id: '1', tool_input: { text: 'model' } })
    const blocker = join(dir, 'block.sh')
    writeFileSync(blocker, `#!/bin/sh\necho 'no notes' >&2\nexit 2\n`, { mode: 0o755 })
    const b = setup({ preToolUse: [{ command: ['/bin/sh', blocker] }] })
    expect((await b.call({})).outputs[0]?.output).toEqual({ kind: 'text', text: 'blocked: no notes', success: false })
    expect(b.effects).toEqual([])
  })

  it('a tool that continues an earlier call skips PreToolUse and pairs PostToolUse with the original call', async () => {
    const pre: string[] = []
    const post: { callId: string; tool: string; input: unknown }[] = []
    const cont = fnTool(
      'write_stdin',
      async (_input, ctx) => {
        const r = await ctx.postToolUse({ callId: 'exec-1', tool: { name: 'exec_command' }, input: { cmd: 'python3' } }, text('>>> done'))
        return r.output
      },
      {},
    )
    const router = new ToolRouter([{ ...cont, hooks: { pre: false, post: false } }])
    const { dispatcher } = setupDispatch({
      hooks: {
        preToolUse: [(i) => (pre.push(i.callId), undefined)],
        postToolUse: [(i) => (post.push({ callId: i.callId, tool: i.tool.name, input: i.input }), { replaceOutput: 'seen by post' })],
      },
    })
    const r = await dispatcher.handleResponse(router.buildStep(), [fnCall('ws-2', 'write_stdin', { chars: '' })])
    expect(pre).toEqual([])
    expect(post).toEqual([{ callId: 'exec-1', tool: 'exec_command', input: { cmd: 'python3' } }])
    expect(r.outputs[0]).toMatchObject({ call_id: 'ws-2', output: { kind: 'text', text: 'seen by post' } })
  })
})
