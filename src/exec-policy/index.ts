/**
 * cordon exec policy: Codex-compatible `.rules` files, shell-script
 * splitting with tree-sitter-bash, heuristics for unmatched commands.
 */
export { createExecPolicy, ExecPolicyOptionsSchema, type ExecPolicy, type ExecPolicyOptions } from './exec-policy.js'
export type { DecideOptions } from './decide.js'
export { loadPolicy, parsePolicy, mergePolicies, EMPTY_POLICY } from './load.js'
export { loadBashParser } from './bash-parser.js'
export { matchRules } from './matcher.js'
export { decideNetwork, normalizeHost, type NetworkDecision } from './network-rule.js'
export { resolveProgram, ResolveOptionsSchema, type ResolveOptions, type ResolvedProgram } from './resolve-program.js'
export { isKnownSafe } from './safe-commands.js'
export { dangerousReason } from './dangerous-commands.js'
export { isAmendmentBanned, proposeAmendment } from './amendment.js'
export { shlexSplit, shlexJoin } from './shlex.js'
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
  type SourceLocation,
} from './types.js'
