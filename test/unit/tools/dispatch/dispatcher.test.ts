/**
 * Dispatch end to end with a scripted model (each response a list of
 * items): deferred tools found by search then called; a stale step's call
 * run with its own snapshot; parallel calls appended in call order; a
 * non-parallel tool waiting for the parallel ones; cancellation; unknown
 * tools; the wrong payload kind; incomplete items; history order.
 */
import { describe, expect, it } from 'vitest'
import { AbortError, ToolContractError, ToolRouter, ToolSetupError, toolSearchTool, type ResponseItem, type ToolEvent, type ToolOutput } from '../../../../src/index.js'
import { deferred, fnCall, fnTool, runSteps, scriptedModel, setupDispatch, text } from '../harness.js'

describe('dispatch', () => {
  it('a deferred tool is not shown, is found by tool search, then called', async () => {
    const calendar = fnTool({ namespace: 'mcp__calendar', name: 'create_event' }, async (input) => text(`created ${JSON.stringify(input)}`), { exposure: 'deferred', description: 'Create a calendar event' })
    const mail = fnTool({ namespace: 'mcp__mail', name: 'send' }, async () => text('sent'), { exposure: 'deferred', description: 'Send an email' })
    const router = new ToolRouter([toolSearchTool(), calendar, mail], [{ name: 'mcp__calendar', description: 'Calendar server' }])
    const { dispatcher } = setupDispatch()
    const model = scriptedModel([
      [{ type: 'tool_search_call', call_id: 's1', query: 'calendar event', status: 'completed' }],
      [fnCall('c1', 'create_event', { title: 'standup' }, 'mcp__calendar')],
    ])
    const first = router.buildStep()
    expect(first.specs.map((s) => s.name)).toEqual(['tool_search'])
    const [found] = (await dispatcher.handleResponse(first, model.next())).outputs
    expect(found?.type).toBe('tool_search_output')
    const out = found?.output as Extract<ToolOutput, { kind: 'search' }>
    expect(out.kind).toBe('search')
    expect(out.tools).toEqual([{ kind: 'namespace', name: 'mcp__calendar', description: 'Calendar server', tools: [{ name: 'create_event', ...calendar.spec }] }])
    const [called] = (await dispatcher.handleResponse(router.buildStep(), model.next())).outputs
    expect(called).toEqual({ type: 'function_call_output', call_id: 'c1', output: text('created {"title":"standup"}') })
  })

  it('a deferred tool a search returned to the model is in the list of every later step, not of the step the search ran in', async () => {
    const calendar = fnTool({ namespace: 'mcp__calendar', name: 'create_event' }, async () => text('created'), { exposure: 'deferred', description: 'Create a calendar event' })
    const local = fnTool('create_event', async () => text('local'), { exposure: 'deferred', description: 'Create a local event' })
    const mail = fnTool({ namespace: 'mcp__mail', name: 'send' }, async () => text('sent'), { exposure: 'deferred', description: 'Send an email' })
    const hidden = fnTool('internal', async () => text('x'), { exposure: 'hidden', description: 'calendar internals' })
    const router = new ToolRouter([toolSearchTool(), calendar, local, mail, hidden], [{ name: 'mcp__calendar', description: 'Calendar server' }])
    const { dispatcher } = setupDispatch()
    const names = (step: ReturnType<ToolRouter['buildStep']>) => step.specs.flatMap((s) => (s.kind === 'namespace' ? s.tools.map((t) => `${s.name}/${t.name}`) : [s.name]))
    const first = router.buildStep()
    await dispatcher.handleResponse(first, [{ type: 'tool_search_call', call_id: 's1', query: 'calendar', status: 'completed' }])
    expect(names(first)).toEqual(['tool_search']) // frozen: the search's own step keeps its list
    const second = router.buildStep()
    // Only what the search returned (the namespaced create_event, not the local one of the same name, nor the mail tool).
    expect(names(second)).toEqual(['tool_search', 'mcp__calendar/create_event'])
    expect(second.specs[1]).toEqual({ kind: 'namespace', name: 'mcp__calendar', description: 'Calendar server', tools: [{ name: 'create_event', ...calendar.spec }] })
    // Still shown in later steps, and after the tool set is replaced by one that has it.
    router.setTools([toolSearchTool(), calendar, local, mail])
    expect(names(router.buildStep())).toEqual(['tool_search', 'mcp__calendar/create_event'])
    // A search the host runs shows the model nothing.
    await dispatcher.invoke(router.buildStep(), { callId: 'h1', name: { name: 'tool_search' }, payload: { kind: 'tool_search', query: 'email' } })
    expect(names(router.buildStep())).toEqual(['tool_search', 'mcp__calendar/create_event'])
    await dispatcher.handleResponse(router.buildStep(), [{ type: 'tool_search_call', call_id: 's2', query: 'email', status: 'completed' }])
    expect(names(router.buildStep())).toEqual(['tool_search', 'mcp__calendar/create_event', 'mcp__mail/send'])
  })

  it('a call produced under step A runs with step A\'s tools after step B was built', async () => {
    const router = new ToolRouter([fnTool('lookup', async () => text('version A'))])
    const { dispatcher } = setupDispatch()
    const stepA = router.buildStep()
    router.setTools([fnTool('lookup', async () => text('version B')), fnTool('other', async () => text('x'))])
    const stepB = router.buildStep()
    const late = await dispatcher.handleResponse(stepA, [fnCall('a1', 'lookup'), fnCall('a2', 'other')])
    expect(late.outputs.map((o) => o.output)).toEqual([text('version A'), { kind: 'unsupported', text: 'unsupported call: other is not a tool here' }])
    const now = await dispatcher.handleResponse(stepB, [fnCall('b1', 'lookup')])
    expect(now.outputs[0]?.output).toEqual(text('version B'))
  })

  it('parallel calls finishing out of order are appended in call order', async () => {
    const gates = { slow: deferred(), fast: deferred() }
    const finished: string[] = []
    const tool = fnTool('wait', async (input) => {
      const which = (input as { which: 'slow' | 'fast' }).which
      await gates[which].promise
      finished.push(which)
      return text(which)
    })
    const router = new ToolRouter([tool])
    const { dispatcher } = setupDispatch()
    const handled = dispatcher.handleResponse(router.buildStep(), [fnCall('1', 'wait', { which: 'slow' }), fnCall('2', 'wait', { which: 'fast' })])
    await tick()
    gates.fast.resolve()
    await tick()
    gates.slow.resolve()
    const r = await handled
    expect(finished).toEqual(['fast', 'slow'])
    expect(r.outputs.map((o) => o.call_id)).toEqual(['1', '2'])
    expect(dispatcher.history.map((h) => [h.type, (h as { call_id: string }).call_id])).toEqual([
      ['function_call', '1'],
      ['function_call', '2'],
      ['function_call_output', '1'],
      ['function_call_output', '2'],
    ])
  })

  it('a non-parallel tool waits for the parallel calls before it, and the ones after it wait for it', async () => {
    const log: string[] = []
    const gate = deferred()
    const par = fnTool('read', async (input) => {
      const id = (input as { id: string }).id
      log.push(`start ${id}`)
      if (id === 'r1') await gate.promise
      log.push(`end ${id}`)
      return text(id)
    })
    const excl = fnTool('write', async () => (log.push('start w', 'end w'), text('w')), { parallel: false })
    const router = new ToolRouter([par, excl])
    const { dispatcher } = setupDispatch()
    const handled = dispatcher.handleResponse(router.buildStep(), [fnCall('1', 'read', { id: 'r1' }), fnCall('2', 'read', { id: 'r2' }), fnCall('3', 'write'), fnCall('4', 'read', { id: 'r3' })])
    await tick()
    expect(log).toEqual(['start r1', 'start r2', 'end r2'])
    gate.resolve()
    const r = await handled
    expect(log).toEqual(['start r1', 'start r2', 'end r2', 'end r1', 'start w', 'end w', 'start r3', 'end r3'])
    expect(r.outputs.map((o) => o.call_id)).toEqual(['1', '2', '3', '4'])
  })

  it('cancellation: running calls stop through their own signal, waiting calls never start; all get aborted outputs', async () => {
    const started: string[] = []
    const stopped: string[] = []
    const running = fnTool('run', async (input, ctx) => {
      const id = (input as { id: string }).id
      started.push(id)
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }))
      stopped.push(id) // the handler's cleanup runs before the output is final
      return text(`partial ${id}`)
    })
    const excl = fnTool('excl', async () => (started.push('excl'), text('never')), { parallel: false })
    const router = new ToolRouter([running, excl])
    const { dispatcher } = setupDispatch()
    const ac = new AbortController()
    const handled = dispatcher.handleResponse(router.buildStep(), [fnCall('1', 'run', { id: 'a' }), fnCall('2', 'run', { id: 'b' }), fnCall('3', 'excl')], ac.signal)
    await tick()
    ac.abort()
    const r = await handled
    expect(r.aborted).toBe(true)
    expect(started).toEqual(['a', 'b'])
    expect(stopped).toEqual(['a', 'b'])
    expect(r.outputs.map((o) => o.output.kind)).toEqual(['aborted', 'aborted', 'aborted'])
    expect((r.outputs[0]?.output as { text: string }).text).toContain('partial a')
    expect(dispatcher.history.filter((h) => h.type === 'function_call_output')).toHaveLength(3)
  })

  it('a handler that ignores the abort: its call is aborted after the grace time, the handler finishes on its own (observed) and holds the lock till then', async () => {
    const gate = deferred()
    let finished = false
    // Ignores ctx.signal, then fails late: the rejection must be observed (vitest fails a run on an unhandled one).
    const stubborn = fnTool('stubborn', async () => {
      await gate.promise
      finished = true
      throw new Error('late failure')
    }, { parallel: false })
    const after = fnTool('after', async () => text('after ran'), { parallel: false })
    const router = new ToolRouter([stubborn, after])
    const events: ToolEvent[] = []
    const { dispatcher } = setupDispatch({ abortGraceMs: 50, onEvent: (e) => void events.push(e) })
    const ac = new AbortController()
    const handled = dispatcher.handleResponse(router.buildStep(), [fnCall('1', 'stubborn')], ac.signal)
    await tick()
    const abortedAt = Date.now()
    ac.abort()
    const r = await handled
    expect(Date.now() - abortedAt).toBeLessThan(1000)
    expect(r.outputs[0]?.output).toEqual({ kind: 'aborted', text: 'aborted: the call was canceled; its handler did not stop within 50 ms and was left to finish on its own' })
    expect(finished).toBe(false)
    expect(events.filter((e) => e.type === 'end').map((e) => (e as { output: string }).output)).toEqual(['aborted'])
    // A non-parallel call waits for the lock the handler still holds.
    let nextDone = false
    const next = dispatcher.handleResponse(router.buildStep(), [fnCall('2', 'after')]).finally(() => (nextDone = true))
    await new Promise((r) => setTimeout(r, 30))
    expect(nextDone).toBe(false)
    gate.resolve()
    const r2 = await next
    expect(finished).toBe(true)
    expect(r2.outputs[0]?.output).toEqual(text('after ran'))
  })

  it('a handler that stops within the grace time gives its own partial output, not the grace-time one', async () => {
    const slowStop = fnTool('slow_stop', async (_i, ctx) => {
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }))
      await new Promise((r) => setTimeout(r, 20)) // reaping what it started
      return text('partial output')
    })
    const { dispatcher } = setupDispatch({ abortGraceMs: 2000 })
    const ac = new AbortController()
    const handled = dispatcher.handleResponse(new ToolRouter([slowStop]).buildStep(), [fnCall('1', 'slow_stop')], ac.signal)
    await tick()
    ac.abort()
    const r = await handled
    expect(r.outputs[0]?.output).toEqual({ kind: 'aborted', text: 'aborted: the call was canceled before it finished\npartial output' })
  })

  it('an unknown tool is an unsupported output the model can read; a hosted tool is not dispatched', async () => {
    const router = new ToolRouter([fnTool('a', async () => text('a')), { name: { name: 'web_search' }, spec: { kind: 'hosted', type: 'web_search' }, exposure: 'direct', parallel: true }])
    const { dispatcher } = setupDispatch()
    const r = await dispatcher.handleResponse(router.buildStep(), [fnCall('1', 'nope'), fnCall('2', 'a', {}, 'ns'), fnCall('3', 'web_search')])
    expect(r.outputs.map((o) => o.output)).toEqual([
      { kind: 'unsupported', text: 'unsupported call: nope is not a tool here' },
      { kind: 'unsupported', text: 'unsupported call: ns/a is not a tool here' },
      { kind: 'unsupported', text: 'unsupported call: web_search is not a tool here' },
    ])
  })

  it('the wrong payload kind is a ToolContractError, not a tool failure; the history stays paired', async () => {
    let ran = false
    const router = new ToolRouter([fnTool('fn', async () => ((ran = true), text('x')))])
    const { dispatcher } = setupDispatch()
    const items: ResponseItem[] = [{ type: 'custom_tool_call', call_id: 'c1', name: 'fn', input: 'raw text', status: 'completed' }]
    const err = await dispatcher.handleResponse(router.buildStep(), items).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ToolContractError)
    expect(err).toMatchObject({ code: 'E_TOOL_CONTRACT', tool: 'fn', expected: 'function', got: 'custom' })
    expect(ran).toBe(false)
    expect(dispatcher.history.map((h) => h.type)).toEqual(['custom_tool_call', 'custom_tool_call_output'])
  })

  it('a call that cannot run at all aborts the other calls of the response, then throws', async () => {
    const other = fnTool('slow', async (_i, ctx) => {
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }))
      return text('late')
    })
    const broken = fnTool('broken', async () => {
      throw new ToolSetupError('broken', { name: 'SetupError', code: 'E_SETUP', message: 'no landlock' })
    })
    const router = new ToolRouter([other, broken])
    const { dispatcher } = setupDispatch()
    const err = await dispatcher.handleResponse(router.buildStep(), [fnCall('1', 'slow'), fnCall('2', 'broken')]).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ToolSetupError)
    expect(dispatcher.history.filter((h) => h.type === 'function_call_output').map((h) => (h as { output: ToolOutput }).output.kind)).toEqual(['aborted', 'aborted'])
  })

  it('only completed items become calls; the call item is in history before its handler runs', async () => {
    const seen: string[][] = []
    const { dispatcher } = setupDispatch()
    const router = new ToolRouter([fnTool('look', async () => (seen.push(dispatcher.history.map((h) => h.type)), text('ok')))])
    const items: ResponseItem[] = [
      { type: 'message', role: 'assistant', content: 'working' },
      { type: 'function_call', call_id: 'p', name: 'look', arguments: '{"a":', status: 'in_progress' },
      { type: 'function_call', call_id: 'q', name: 'look', arguments: '{}', status: 'incomplete' },
      fnCall('1', 'look'),
    ]
    const r = await dispatcher.handleResponse(router.buildStep(), items)
    expect(r.incomplete.map((i) => (i as { call_id: string }).call_id)).toEqual(['p', 'q'])
    expect(seen).toEqual([['message', 'function_call']])
    expect(dispatcher.history.map((h) => h.type)).toEqual(['message', 'function_call', 'function_call_output'])
  })

  it('arguments that are not a JSON object are a failure the model reads', async () => {
    const router = new ToolRouter([fnTool('a', async () => text('never'))])
    const { dispatcher } = setupDispatch()
    const r = await dispatcher.handleResponse(router.buildStep(), [
      { type: 'function_call', call_id: '1', name: 'a', arguments: '{oops', status: 'completed' },
      { type: 'function_call', call_id: '2', name: 'a', arguments: '[1]', status: 'completed' },
    ])
    expect(r.outputs.map((o) => o.output)).toMatchObject([
      { kind: 'text', success: false, text: expect.stringContaining('not valid JSON') },
      { kind: 'text', success: false, text: 'the arguments must be a JSON object' },
    ])
  })

  it('a streamed response starts a call as soon as its item is complete', async () => {
    const started: string[] = []
    const router = new ToolRouter([fnTool('a', async (i) => (started.push((i as { id: string }).id), text('ok')))])
    const { dispatcher } = setupDispatch()
    const later = deferred()
    async function* stream(): AsyncGenerator<ResponseItem> {
      yield fnCall('1', 'a', { id: 'first' })
      await later.promise
      yield fnCall('2', 'a', { id: 'second' })
    }
    const handled = dispatcher.handleResponse(router.buildStep(), stream())
    await tick()
    expect(started).toEqual(['first'])
    later.resolve()
    expect((await handled).outputs).toHaveLength(2)
  })

  it('host invoke: direct, hidden and deferred tools are callable, direct-model-only is not; nothing goes to history', async () => {
    const router = new ToolRouter([fnTool('h', async () => text('hidden ran'), { exposure: 'hidden' }), fnTool('m', async () => text('never'), { exposure: 'direct-model-only' })])
    const { dispatcher } = setupDispatch()
    const step = router.buildStep()
    expect((await dispatcher.invoke(step, { callId: 'x', name: { name: 'h' }, payload: { kind: 'function', arguments: '{}' } })).output).toEqual(text('hidden ran'))
    expect((await dispatcher.invoke(step, { callId: 'y', name: { name: 'm' }, payload: { kind: 'function', arguments: '{}' } })).output.kind).toBe('unsupported')
    expect(dispatcher.history).toEqual([])
    // The model may call the model-only one.
    expect((await runSteps(router, dispatcher, scriptedModel([[fnCall('z', 'm')]]), 1))[0]?.outputs[0]?.output).toEqual(text('never'))
  })

  it('output is bounded for the model (head and tail, with what was omitted); events carry capped previews', async () => {
    const big = `HEAD${'x'.repeat(50_000)}TAIL`
    const events: ToolEvent[] = []
    const router = new ToolRouter([fnTool('big', async () => text(big))])
    const { dispatcher } = setupDispatch({ maxOutputBytes: 1000, previewBytes: 64, onEvent: (e) => events.push(e) })
    const r = await dispatcher.handleResponse(router.buildStep(), [fnCall('1', 'big')])
    const t = (r.outputs[0]?.output as { text: string }).text
    expect(t.startsWith('HEAD')).toBe(true)
    expect(t.endsWith('TAIL')).toBe(true)
    expect(t).toContain(`[… ${big.length - 1000} bytes omitted …]`)
    expect(events.map((e) => e.type)).toEqual(['start', 'end'])
    const end = events[1] as Extract<ToolEvent, { type: 'end' }>
    expect(end).toMatchObject({ callId: '1', tool: 'big', output: 'text', success: true })
    expect(end.outputPreview.length).toBeLessThan(100)
  })

  it('an aborted signal before the response is handled gives aborted outputs without running anything', async () => {
    let ran = false
    const router = new ToolRouter([fnTool('a', async () => ((ran = true), text('x')))])
    const { dispatcher } = setupDispatch()
    const ac = new AbortController()
    ac.abort(new AbortError('stop'))
    const r = await dispatcher.handleResponse(router.buildStep(), [fnCall('1', 'a')], ac.signal)
    expect(ran).toBe(false)
    expect(r.outputs[0]?.output.kind).toBe('aborted')
  })
})

function tick(): Promise<void> {
  return new Promise((r) => setTimeout(r, 20))
}
