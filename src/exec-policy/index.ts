/**
 * cordon exec policy: Codex-compatible `.rules` files, shell scripts read
 * as the shells read them (tree-sitter-bash for hints inside opaque ones),
 * heuristics for unmatched commands.
 */
export { createExecPolicy, warmUpExecPolicy, ExecPolicyOptionsSchema, type ExecPolicy, type ExecPolicyOptions } from './exec-policy.js'
export type { DecideOptions } from './types.js'
export { WorkspaceSchema, type Workspace } from './heuristics/redirections.js'
export { loadPolicy, parsePolicy, mergePolicies, EMPTY_POLICY } from './rules/load.js'
export { matchRules } from './rules/matcher.js'
export { decideNetwork, normalizeHost, type NetworkDecision } from './rules/network-rule.js'
export { resolveProgram, ResolveOptionsSchema, type ResolveOptions, type ResolvedProgram } from './shell/resolve-program.js'
export { isKnownSafe } from './heuristics/safe-commands.js'
export { dangerousReason } from './heuristics/dangerous-commands.js'
export { isAmendmentBanned, proposeAmendment } from './rules/amendment.js'
export { shlexSplit, shlexJoin } from './rules/shlex.js'
export {
  DECISIONS,
  stricter,
  isDecision,
  formatLocation,
  type CommandDecision,
  type Decision,
  type DecisionSource,
  type MatchedRule,
  type NetworkProtocol,
  type NetworkRule,
  type Policy,
  type PrefixRule,
  type SegmentDecision,
  type SegmentRedirect,
  type SourceLocation,
} from './types.js'
