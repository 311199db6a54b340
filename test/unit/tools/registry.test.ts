/**
 * The registry: duplicates and bad tools rejected at construction;
 * structured names (a namespaced tool never collides with a local one);
 * "registered" (dispatchable) and "visible" (shown) are different sets.
 */
import { describe, expect, it } from 'vitest'
import { PolicyError, ToolRegistry, ToolRouter, type Tool } from '../../../src/index.js'
import { fnTool, text } from './harness.js'

const ok = async () => text('ok')

describe('ToolRegistry', () => {
  it('rejects a duplicate name at construction, naming it', () => {
    expect(() => new ToolRegistry([fnTool('a', ok), fnTool('a', ok)])).toThrow(PolicyError)
    expect(() => new ToolRegistry([fnTool({ namespace: 'ns', name: 'a' }, ok), fnTool({ namespace: 'ns', name: 'a' }, ok)])).toThrow(/duplicate tool ns\/a/)
  })

  it('a namespaced tool and a local tool of the same name are two tools', async () => {
    const local = fnTool('create_event', async () => text('local'))
    const remote = fnTool({ namespace: 'mcp__calendar', name: 'create_event' }, async () => text('remote'))
    const r = new ToolRegistry([local, remote])
    expect(r.get({ name: 'create_event' })).toBe(local)
    expect(r.get({ namespace: 'mcp__calendar', name: 'create_event' })).toBe(remote)
    // No spelling of one reaches the other.
    expect(r.get({ name: 'mcp__calendar/create_event' })).toBeUndefined()
    expect(r.get({ namespace: 'mcp__calendar', name: 'create' })).toBeUndefined()
  })

  it('rejects names a provider would not accept (a slash cannot fake a namespace)', () => {
    expect(() => new ToolRegistry([fnTool('mcp__calendar/create_event', ok)])).toThrow(PolicyError)
    expect(() => new ToolRegistry([fnTool('', ok)])).toThrow(PolicyError)
  })

  it('a tool needs a handler; a hosted tool has none and is shown', () => {
    const noHandler = { ...fnTool('x', ok), handler: undefined } as Tool
    expect(() => new ToolRegistry([noHandler])).toThrow(/has no handler/)
    const hosted: Tool = { name: { name: 'web_search' }, spec: { kind: 'hosted', type: 'web_search' }, exposure: 'direct', parallel: true }
    expect(() => new ToolRegistry([{ ...hosted, handler: ok }])).toThrow(/provider runs it/)
    expect(() => new ToolRegistry([{ ...hosted, exposure: 'hidden' }])).toThrow(/must be shown/)
  })

  it('registered and visible are two sets', () => {
    const tools: Tool[] = [
      fnTool('direct', ok),
      fnTool('deferred', ok, { exposure: 'deferred' }),
      fnTool('model_only', ok, { exposure: 'direct-model-only' }),
      fnTool('hidden', ok, { exposure: 'hidden' }),
      { name: { name: 'web_search' }, spec: { kind: 'hosted', type: 'web_search' }, exposure: 'direct', parallel: true },
    ]
    const r = new ToolRegistry(tools)
    expect(r.registered().map((t) => t.name.name)).toEqual(['direct', 'deferred', 'model_only', 'hidden'])
    expect(r.visible().map((t) => t.name.name)).toEqual(['direct', 'model_only', 'web_search'])
    expect(r.deferred().map((t) => t.name.name)).toEqual(['deferred'])
    expect(r.get({ name: 'hidden' })).toBeDefined()
    expect(r.get({ name: 'web_search' })).toBeUndefined()
  })
})

describe('ToolRouter', () => {
  it('each step is a frozen snapshot: specs and registry from the same list', () => {
    const router = new ToolRouter([fnTool('a', ok), fnTool({ namespace: 'mcp__cal', name: 'list' }, ok), fnTool('h', ok, { exposure: 'hidden' })], [{ name: 'mcp__cal', description: 'Calendar' }])
    const a = router.buildStep()
    expect(a.specs).toEqual([
      { name: 'a', kind: 'function', description: 'the a tool', parameters: { type: 'object' } },
      { kind: 'namespace', name: 'mcp__cal', description: 'Calendar', tools: [{ name: 'list', kind: 'function', description: 'the list tool', parameters: { type: 'object' } }] },
    ])
    expect(Object.isFrozen(a)).toBe(true)
    expect(Object.isFrozen(a.specs)).toBe(true)
    router.setTools([fnTool('b', ok)])
    const b = router.buildStep()
    expect(b.id).toBe(a.id + 1)
    expect(a.registry.get({ name: 'a' })).toBeDefined()
    expect(a.registry.get({ name: 'b' })).toBeUndefined()
    expect(b.specs.map((s) => s.name)).toEqual(['b'])
  })

  it('a duplicate in a new tool set is rejected when it is set, and the steps keep the old set', () => {
    const router = new ToolRouter([fnTool('a', ok)])
    expect(() => router.setTools([fnTool('b', ok), fnTool('b', ok)])).toThrow(PolicyError)
    expect(router.buildStep().specs.map((s) => s.name)).toEqual(['a'])
  })
})
