/**
 * The tools of one step, by name. Built once from a list and frozen:
 * duplicates, bad names and a tool without a handler are rejected at
 * construction (PolicyError), never discovered at dispatch.
 *
 * Two different sets, on purpose:
 * - registered: what dispatch may run (every tool with a handler, hidden
 *   and deferred ones included; a hosted tool is run by the provider);
 * - visible: what the model is shown in the step's list (`direct` and
 *   `direct-model-only`, hosted included; never hidden; deferred ones only
 *   once a tool search has returned them, router.ts).
 */
import { PolicyError } from '../errors.js'
import { displayName, nameKey, toolNameSchema } from './names.js'
import type { Tool, ToolName } from './types.js'

/** A namespace's own description, shown to the model above its tools. */
export interface NamespaceInfo {
  readonly name: string
  readonly description: string
}

export class ToolRegistry {
  private readonly byName: ReadonlyMap<string, Tool>
  private readonly namespaceInfo: ReadonlyMap<string, string>
  readonly tools: readonly Tool[]

  constructor(tools: readonly Tool[], namespaces: readonly NamespaceInfo[] = []) {
    const byName = new Map<string, Tool>()
    for (const [i, tool] of tools.entries()) {
      checkTool(tool, i)
      const key = nameKey(tool.name)
      if (byName.has(key)) throw new PolicyError(`duplicate tool ${displayName(tool.name)}`, { where: `tools[${i}]` })
      byName.set(key, tool)
    }
    this.byName = byName
    this.namespaceInfo = new Map(namespaces.map((n) => [n.name, n.description]))
    this.tools = Object.freeze([...tools])
  }

  /** The tool dispatch would run for this name: undefined when none is registered (a hosted tool is not). */
  get(name: ToolName): Tool | undefined {
    const t = this.byName.get(nameKey(name))
    return t && t.spec.kind !== 'hosted' ? t : undefined
  }

  /** What dispatch may run. */
  registered(): Tool[] {
    return this.tools.filter((t) => t.spec.kind !== 'hosted')
  }

  /** What the model is shown in this step's list: the direct tools, and the deferred ones named in `found` (name keys). */
  visible(found: ReadonlySet<string> = new Set()): Tool[] {
    return this.tools.filter((t) => t.exposure === 'direct' || t.exposure === 'direct-model-only' || (t.exposure === 'deferred' && t.spec.kind !== 'hosted' && found.has(nameKey(t.name))))
  }

  /** Registered, shown only when a tool search finds them. */
  deferred(): Tool[] {
    return this.tools.filter((t) => t.exposure === 'deferred' && t.spec.kind !== 'hosted')
  }

  namespaceDescription(name: string): string | undefined {
    return this.namespaceInfo.get(name)
  }
}

function checkTool(tool: Tool, i: number): void {
  const where = `tools[${i}]`
  const parsed = toolNameSchema.safeParse(tool?.name)
  if (!parsed.success) throw new PolicyError(`bad tool name ${JSON.stringify(tool?.name)}: ${parsed.error.issues[0]?.message}`, { where })
  const hosted = tool.spec?.kind === 'hosted'
  if (hosted && tool.handler) throw new PolicyError(`hosted tool ${displayName(tool.name)} has a handler: the provider runs it`, { where })
  if (!hosted && typeof tool.handler !== 'function') throw new PolicyError(`tool ${displayName(tool.name)} has no handler`, { where })
  if (hosted && tool.exposure !== 'direct' && tool.exposure !== 'direct-model-only') throw new PolicyError(`hosted tool ${displayName(tool.name)} must be shown (exposure direct)`, { where })
}
