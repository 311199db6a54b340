/**
 * One frozen snapshot per sampling step. The model-visible specs and the
 * registry dispatch uses are built from the SAME list at the same moment,
 * so what the model was shown and what its calls run can never disagree;
 * a call produced under step A runs with step A's tools even when it is
 * executed after step B was built (the tool set changed meanwhile: an MCP
 * server came or went).
 */
import { modelSpecs } from './model-specs.js'
import { ToolRegistry, type NamespaceInfo } from './registry.js'
import type { ModelToolSpec, StepView, Tool } from './types.js'

export interface Step extends StepView {
  readonly registry: ToolRegistry
}

export class ToolRouter {
  private current: ToolRegistry
  private next = 1

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
    const specs: readonly ModelToolSpec[] = Object.freeze(modelSpecs(registry.visible(), (ns) => registry.namespaceDescription(ns)))
    return Object.freeze({ id: this.next++, specs, registry })
  }
}
