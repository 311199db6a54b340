/**
 * cordon tools: the layer an agent runtime hands a model's tool calls to
 * (docs/tools.md). Tools carry both faces (spec + handler); a router
 * freezes one snapshot per step; dispatch runs calls under hooks and a
 * read/write lock and appends outputs in call order; runtimes run through
 * orchestrator.run().
 */
export type {
  Tool,
  ToolName,
  Exposure,
  ToolSpec,
  FunctionSpec,
  FreeformSpec,
  ToolSearchSpec,
  HostedSpec,
  ModelToolSpec,
  JsonSchema,
  ToolPayload,
  ToolCall,
  ToolOutput,
  ToolContext,
  ToolHandler,
  ToolInput,
  StepView,
} from './types.js'
export { PAYLOAD_OF } from './types.js'
export { toolNameSchema, displayName, nameKey } from './names.js'
export { ToolRegistry, type NamespaceInfo } from './registry.js'
export { ToolRouter, type Step } from './router.js'
export { Dispatcher, type DispatcherOptions, type ResponseResult } from './dispatch/dispatcher.js'
export type { ToolEvent } from './dispatch/call.js'
export { callOf, type ResponseItem, type CallItem, type OutputItem, type HistoryItem, type OtherItem } from './dispatch/items.js'
export type { ToolHooks, ToolPreInput, ToolPreResult, ToolPostInput, ToolPostResult } from './dispatch/tool-hooks.js'
export { truncateForModel, preview, DEFAULT_MODEL_OUTPUT_BYTES, DEFAULT_PREVIEW_BYTES } from './dispatch/truncate.js'
export { toolSearchTool, DEFAULT_SEARCH_LIMIT } from './search/tool-search.js'
export { shellRuntime, type ShellRequest } from './shell/shell-runtime.js'
export { shellTool } from './shell/shell-tool.js'
