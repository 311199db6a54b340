/**
 * Helpers for the tool-layer tests: function tools with scripted handlers,
 * a scripted model (a list of responses, each a list of response items)
 * and a dispatcher over an orchestrator whose sandboxes are scripted
 * (test/unit/orchestrator/fake-sandbox.ts).
 */
import { afterAll } from 'vitest'
import { createOrchestrator, type OrchestratorOptions } from '../../../src/orchestrator/index.js'
import { Dispatcher, type DispatcherOptions, type ResponseItem, type Tool, type ToolHandler, type ToolName, type ToolRouter } from '../../../src/index.js'
import { fakeSandboxes, type Script } from '../orchestrator/fake-sandbox.js'
import { removeTempDirs, tempDir } from '../../helpers/temp.js'

afterAll(removeTempDirs)

export function fnTool(name: string | ToolName, handler: ToolHandler, opts: Partial<Pick<Tool, 'parallel' | 'exposure' | 'keywords'>> & { description?: string } = {}): Tool {
  return {
    name: typeof name === 'string' ? { name } : name,
    spec: { kind: 'function', description: opts.description ?? `the ${typeof name === 'string' ? name : name.name} tool`, parameters: { type: 'object' } },
    exposure: opts.exposure ?? 'direct',
    parallel: opts.parallel ?? true,
    handler,
    ...(opts.keywords ? { keywords: opts.keywords } : {}),
  }
}

export const text = (t: string, success = true) => ({ kind: 'text' as const, text: t, success })

export function fnCall(callId: string, name: string, args: unknown = {}, namespace?: string): ResponseItem {
  return { type: 'function_call', call_id: callId, name, ...(namespace ? { namespace } : {}), arguments: JSON.stringify(args), status: 'completed' }
}

/** A model that answers each step with the next scripted response. */
export function scriptedModel(responses: readonly (readonly ResponseItem[])[]) {
  let i = 0
  return { next: (): readonly ResponseItem[] => responses[i++] ?? [] }
}

export function setupDispatch(opts: Omit<DispatcherOptions, 'orchestrator'> = {}, orch: Partial<OrchestratorOptions> = {}, script: Script = () => ({})) {
  const ws = tempDir('tools-ws-')
  const fake = fakeSandboxes(script, ws)
  const orchestrator = createOrchestrator({ sandbox: { profile: 'workspace-write', cwd: ws }, createSandbox: fake.create, ...orch })
  const dispatcher = new Dispatcher({ orchestrator, ...opts })
  return { orchestrator, dispatcher, fake, ws }
}

/** Run `steps` sampling steps of the scripted model through the router and dispatcher. */
export async function runSteps(router: ToolRouter, dispatcher: Dispatcher, model: ReturnType<typeof scriptedModel>, steps: number) {
  const results = []
  for (let s = 0; s < steps; s++) {
    const step = router.buildStep()
    results.push(await dispatcher.handleResponse(step, model.next()))
  }
  return results
}

/** A promise and its resolver. */
export function deferred<T = void>() {
  let resolve!: (v: T) => void
  const promise = new Promise<T>((r) => (resolve = r))
  return { promise, resolve }
}
