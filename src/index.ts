/** cordon — public API. */
export { createSandbox, type Sandbox } from './sandbox/sandbox.js'
export type { SandboxOptions, RunOptions, BufferRunOptions, TextRunOptions } from './sandbox/options.js'
export type { SandboxProcess } from './sandbox/run.js'
export type { CommandTerminal, TerminalSize } from './platform/backend.js'
export type { SandboxResult } from './sandbox/result.js'
export type { LimitEvents } from './platform/backend.js'
export type { Enforcement, MissingProtection, EnforcementMode, LinuxEnforcement, DarwinEnforcement, WindowsEnforcement, PlatformEnforcement, ResourceLimits, WideningLimits } from './platform/enforcement.js'
export { profileSchema, filesystemSchema, envSchema, limitsSchema, type Profile, type ProfileInput, type SandboxMode, type Compat } from './profile/schema.js'
export { loadProfile, BUILTIN_PROFILES, DEFAULT_PROFILE } from './profile/profiles.js'
export { hardenProcess } from './harden.js'
export { doctor, type DoctorReport, type DoctorCheck } from './doctor.js'
export * from './errors.js'

// Exec policy: Codex-compatible .rules, tree-sitter-bash splitting, heuristics.
export {
  createExecPolicy,
  warmUpExecPolicy,
  loadPolicy,
  parsePolicy,
  mergePolicies,
  resolveProgram,
  isKnownSafe,
  dangerousReason,
  type ExecPolicy,
  type ExecPolicyOptions,
  type CommandDecision,
  type SegmentDecision,
  type MatchedRule,
  type Policy,
  type PrefixRule,
  type NetworkRule,
  type Decision as PolicyDecision,
  type DecisionSource as PolicyDecisionSource,
} from './exec-policy/index.js'

// Orchestrator: approvals, hooks, session cache, amendments, bounded escalation.
export * from './orchestrator/index.js'

// Tools: specs + handlers, per-step router, ordered dispatch, runtimes driven by orchestrator.run().
export * from './tools/index.js'
// Unified exec: exec_command / write_stdin, sessions on PTYs inside the sandbox.
export * from './tools/unified-exec/index.js'
