/**
 * One frozen snapshot per sampling step. The model-visible specs and the
 * registry dispatch uses are built from the SAME list at the same moment,
 * so what the model was shown and what its calls run can never disagree;
 * a call produced under step A runs with step A's tools even when it is
 * executed after step B was built (the tool set changed meanwhile: an MCP
 * server came or went).
 *
 * A deferred tool that a tool search returned to the model is shown in
 * every step built after that search, as a direct one (Codex keeps a
 * found tool in the model's list for the rest of the session): the model
 * read its spec once and may call it in any later turn, and its schema in
 * the list keeps that call well-formed. The step the search ran in keeps
 * its own list (frozen).
 */
import { modelSpecs } from './model-specs.js'
import { nameKey } from './names.js'
import { ToolRegistry, type NamespaceInfo } from './registry.js'
import type { ModelToolSpec, StepView, Tool, ToolName } from './types.js'

export interface Step extends StepView {
  readonly registry: ToolRegistry
  /** Show these deferred tools in the steps built from now on (a tool search returned them to the model). */
  readonly reveal: (names: readonly ToolName[]) => void
}

export class ToolRouter {
  private current: ToolRegistry
  private next = 1
  /** Name keys of deferred tools a tool search returned to the model, for this router's session. */
  private readonly found = new Set<string>()

  constructor(tools: readonly Tool[], namespaces: readonly NamespaceInfo[] = []) {
    this.current = new ToolRegistry(tools, namespaces)
  }

  /** Replace the tool set for the steps built from now on (validated here: a duplicate throws now). Built steps keep theirs. */
  setTools(tools: readonly Tool[], namespaces: readonly NamespaceInfo[] = []): void {
    this.current = new ToolRegistry(tools, namespaces)
  }

  /** The snapshot of the next step: its specs (what the model is sent) and its registry. */
  buildStep(): Step {
    const registry = this.current
    const specs: readonly ModelToolSpec[] = Object.freeze(modelSpecs(registry.visible(this.found), (ns) => registry.namespaceDescription(ns)))
    const reveal = (names: readonly ToolName[]) => names.forEach((n) => this.found.add(nameKey(n)))
    return Object.freeze({ id: this.next++, specs, registry, reveal })
  }
}
