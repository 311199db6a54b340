/**
 * cordon orchestrator: approval modes, hooks, session cache, amendments,
 * denial detection with attribution, and bounded escalation that never
 * drops a denied read.
 */
export { createOrchestrator, type Orchestrator, type OrchestratorOptions, type Assessment } from './orchestrator.js'
export { execRequestSchema, orchestratorOptionsSchema, type ExecRequest } from './options.js'
export type { ExecOutcome, ExecStatus, Escalation } from './outcome.js'
export type { AttemptRecord, AttemptResult, OutputSpec } from './attempt.js'
export type { ToolRuntime, DescribeContext, WorkspaceFacts, RuntimeDescription, RuntimeApproval, AttemptSandbox, AttemptContext, RuntimeAttempt, RunControl, RunOutcome } from './runtime.js'
export { pathKeys, runKey, type RunFacts, type Level } from './approval/command-key.js'
export type { OutputChunk, OutputCut, OutputKeep, OutputListener, OutputStream, OutputTruncation } from './output.js'
export { approvalModeSchema, promptClassSchema, type ApprovalMode, type PromptClass } from './approval/approval-mode.js'
export {
  approvalDecisionSchema,
  type ApprovalDecision,
  type ApprovalDecisionName,
  type ApprovalRecord,
  type ApprovalRequest,
  type Approver,
  type DecisionSource,
} from './approval/approval.js'
export { requirementFor, type Requirement, type SandboxPermissions } from './approval/requirement.js'
export type {
  Hooks,
  Hook,
  PreToolUseInput,
  PreToolUseResult,
  PermissionRequestInput,
  PermissionRequestResult,
  PostToolUseInput,
  PostToolUseResult,
  ShownResult,
} from './hooks/hooks.js'
export type { HookCommand } from './hooks/hook-command.js'
export { detectDenials, type Denial, type DenialRule } from './denial/denial.js'
export type { Widening } from './escalation/widen.js'
export { appendPrefixRule, appendNetworkRule, type AmendResult } from './approval/amendments.js'
export { SessionCache } from './approval/session-cache.js'
