/**
 * Tool search ranking over deferred tools: name words weigh more than
 * description words, no matching word means not returned, ties keep
 * registration order, and the limit holds. A query is bounded (its
 * length, its distinct words): the ranking runs on the event loop.
 */
import { describe, expect, it } from 'vitest'
import { ToolRouter, toolSearchTool, type ToolOutput } from '../../../../src/index.js'
import { MAX_QUERY_CHARS, MAX_QUERY_TERMS, rank } from '../../../../src/tools/search/tool-search.js'
import { fnTool, setupDispatch, text } from '../harness.js'

const ok = async () => text('ok')
const tools = [
  fnTool({ namespace: 'mcp__mail', name: 'send' }, ok, { exposure: 'deferred', description: 'Send an email; can attach a calendar invite' }),
  fnTool({ namespace: 'mcp__calendar', name: 'createEvent' }, ok, { exposure: 'deferred', description: 'Create an event' }),
  fnTool('list_files', ok, { exposure: 'deferred', description: 'List files', keywords: ['directory', 'ls'] }),
  fnTool('visible_calendar', ok, { description: 'not deferred' }),
]

describe('tool search', () => {
  it('ranks name words over description words and returns only matches', () => {
    const deferredOnly = tools.filter((t) => t.exposure === 'deferred')
    expect(rank(deferredOnly, 'calendar').map((t) => t.name.name)).toEqual(['createEvent', 'send'])
    expect(rank(deferredOnly, 'create event').map((t) => t.name.name)).toEqual(['createEvent'])
    expect(rank(deferredOnly, 'directory').map((t) => t.name.name)).toEqual(['list_files'])
    expect(rank(deferredOnly, 'nothing here')).toEqual([])
    expect(rank(deferredOnly, '')).toEqual([])
  })

  it('searches only the deferred tools of the step, within the limit', async () => {
    const router = new ToolRouter([toolSearchTool({ limit: 1 }), ...tools])
    const { dispatcher } = setupDispatch()
    const r = await dispatcher.handleResponse(router.buildStep(), [{ type: 'tool_search_call', call_id: 's', query: 'calendar', status: 'completed' }])
    const out = r.outputs[0]?.output as Extract<ToolOutput, { kind: 'search' }>
    expect(out.tools.map((t) => t.name)).toEqual(['mcp__calendar'])
  })

  it('a tool search without a search tool in the step is unsupported', async () => {
    const router = new ToolRouter(tools)
    const { dispatcher } = setupDispatch()
    const r = await dispatcher.handleResponse(router.buildStep(), [{ type: 'tool_search_call', call_id: 's', query: 'x', status: 'completed' }])
    expect(r.outputs[0]?.output.kind).toBe('unsupported')
  })

  it('a query longer than MAX_QUERY_CHARS is a model-readable failure, and nothing is ranked', async () => {
    const router = new ToolRouter([toolSearchTool(), ...tools])
    const { dispatcher } = setupDispatch()
    const r = await dispatcher.handleResponse(router.buildStep(), [{ type: 'tool_search_call', call_id: 's', query: 'calendar '.repeat(100_000), status: 'completed' }])
    expect(r.outputs[0]?.output).toEqual({ kind: 'text', success: false, text: `tool_search: the query is longer than ${MAX_QUERY_CHARS} characters; search with a few words` })
    const atBound = await dispatcher.handleResponse(router.buildStep(), [{ type: 'tool_search_call', call_id: 't', query: 'calendar'.padEnd(MAX_QUERY_CHARS), status: 'completed' }])
    expect(atBound.outputs[0]?.output.kind).toBe('search')
  })

  it('each distinct query word counts once, and only the first MAX_QUERY_TERMS of them', () => {
    const deferredOnly = tools.filter((t) => t.exposure === 'deferred')
    // Repeating a word does not outweigh a name match.
    expect(rank(deferredOnly, 'invite invite invite invite calendar').map((t) => t.name.name)).toEqual(['createEvent', 'send'])
    const filler = Array.from({ length: MAX_QUERY_TERMS }, (_, i) => `zz${i}`).join(' ')
    expect(rank(deferredOnly, `${filler} calendar`)).toEqual([])
    expect(rank(deferredOnly, `calendar ${filler}`).map((t) => t.name.name)).toEqual(['createEvent', 'send'])
  })
})
