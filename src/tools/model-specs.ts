/**
 * What the model is shown: each visible tool's spec under its name, the
 * tools of a namespace grouped under one `namespace` entry (in the order
 * their first tool appears).
 */
import type { ModelToolSpec, Tool, ToolSpec } from './types.js'

type Named = { readonly name: string } & ToolSpec

export function named(tool: Tool): Named {
  return { name: tool.name.name, ...tool.spec }
}

export function modelSpecs(tools: readonly Tool[], describe: (namespace: string) => string | undefined): ModelToolSpec[] {
  const out: ModelToolSpec[] = []
  const groups = new Map<string, Named[]>()
  for (const tool of tools) {
    const ns = tool.name.namespace
    if (ns === undefined) {
      out.push(named(tool))
      continue
    }
    let group = groups.get(ns)
    if (!group) {
      group = []
      groups.set(ns, group)
      out.push({ kind: 'namespace', name: ns, description: describe(ns) ?? `Tools of ${ns}`, tools: group })
    }
    group.push(named(tool))
  }
  return out
}
