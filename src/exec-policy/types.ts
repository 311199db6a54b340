/**
 * Data shapes shared by the exec-policy engine: decisions, rules, the merged
 * policy, and the result of deciding a command. Everything here is plain
 * data so results can be logged, serialised and compared in tests.
 */
import type { Workspace } from './heuristics/redirections.js'
import type { ResolveOptions } from './shell/resolve-program.js'

/** What the orchestrator should do before running a command. */
export type Decision = 'allow' | 'prompt' | 'forbidden'

/**
 * `allow` means "no prompt" only. It never means "run outside the sandbox":
 * where a command runs is the orchestrator's business, not the policy's.
 */
export const DECISIONS: readonly Decision[] = ['allow', 'prompt', 'forbidden']

const SEVERITY: Record<Decision, number> = { allow: 0, prompt: 1, forbidden: 2 }

/** The stricter of two decisions (forbidden > prompt > allow). */
export function stricter(a: Decision, b: Decision): Decision {
  return SEVERITY[b] > SEVERITY[a] ? b : a
}

export function isDecision(value: string): value is Decision {
  return value === 'allow' || value === 'prompt' || value === 'forbidden'
}

/** Where something was written in a rules file (1-based line and column). */
export interface SourceLocation {
  readonly file: string
  readonly line: number
  readonly column: number
}

export function formatLocation(loc: SourceLocation): string {
  return `${loc.file}:${loc.line}:${loc.column}`
}

/** One rule per distinct first token; `rest[i]` lists the accepted alternatives for argv[i + 1]. */
export interface PrefixRule {
  readonly program: string
  readonly rest: readonly (readonly string[])[]
  readonly decision: Decision
  readonly justification: string | undefined
  /** Where the `prefix_rule(...)` call starts. */
  readonly location: SourceLocation
}

export type NetworkProtocol = 'http' | 'https' | 'socks5_tcp' | 'socks5_udp'

export interface NetworkRule {
  /** Lower-case host name or IP literal, without port or trailing dot. */
  readonly host: string
  readonly protocol: NetworkProtocol
  readonly decision: Decision
  readonly justification: string | undefined
  readonly location: SourceLocation
}

/** A parsed (and, for several files, merged) policy. Immutable once built. */
export interface Policy {
  readonly files: readonly string[]
  /** Rules keyed by their first token, in file order. */
  readonly rulesByProgram: ReadonlyMap<string, readonly PrefixRule[]>
  readonly networkRules: readonly NetworkRule[]
  /** `host_executable(name=…)`: the only absolute paths allowed to stand for `name`. */
  readonly hostExecutables: ReadonlyMap<string, readonly string[]>
}

/** A rule that matched, as reported to callers. */
export interface MatchedRule {
  readonly decision: Decision
  readonly justification: string | undefined
  /** `file:line` of the `prefix_rule(...)` call. */
  readonly where: string
  readonly location: SourceLocation
  /** The argv prefix the rule matched. */
  readonly matchedPrefix: readonly string[]
  /** Set when an absolute path matched a basename rule through `host_executable`. */
  readonly resolvedProgram?: string
}

/**
 * Why a segment got its decision:
 * - `rule`: at least one prefix rule matched (the strictest one wins);
 * - `heuristic-safe`: no rule matched, the command is on the known read-only list;
 * - `heuristic-dangerous`: no rule matched, the command is on the destructive list;
 * - `default`: no rule matched and the command is not known safe. The decision
 *   is `prompt`; an orchestrator that runs unmatched commands in the sandbox
 *   without asking may map this source to its own choice.
 */
export type DecisionSource = 'rule' | 'heuristic-safe' | 'heuristic-dangerous' | 'default'

/** A redirection of a command in a shell script (`2>&1`, `> log`, `< in`): fd, operator, target. */
export interface SegmentRedirect {
  readonly fd: number
  readonly op: '<' | '>' | '>>' | '>|' | '<>' | '<&' | '>&'
  readonly target: string
}

export interface SegmentDecision {
  readonly argv: readonly string[]
  /**
   * The command's redirections, in order, when it has any. They are part of
   * what runs: `cat x > a` and `cat x > /etc/b` share an argv, so anything
   * that keys on a command (a session approval) must key on these too.
   */
  readonly redirects?: readonly SegmentRedirect[]
  /**
   * Indices of argv words that are globs (bash replaces them by the file
   * names they match), when there are any: `bash -lc 'rm *.o'` and the argv
   * `['rm', '*.o']` share an argv but not what runs.
   */
  readonly globs?: readonly number[]
  readonly decision: Decision
  readonly source: DecisionSource
  readonly matchedRules: readonly MatchedRule[]
  /** Extra context: why a heuristic fired, why a program could not be trusted. */
  readonly reason?: string
}

export interface CommandDecision {
  readonly decision: Decision
  readonly source: DecisionSource
  readonly matchedRules: readonly MatchedRule[]
  readonly segments: readonly SegmentDecision[]
  /** True when a shell script could not be split into plain commands. */
  readonly opaque: boolean
  /** A `prefix_rule` pattern the user could add to stop being asked; absent when banned. */
  readonly proposedAmendment?: readonly string[]
}

/**
 * Options of one decision. Here, not in decide.ts, so that the public
 * declarations never import decide.d.ts and through it web-tree-sitter's
 * types (which name a global they do not ship: a consumer compiling with
 * skipLibCheck: false would fail on them).
 */
export interface DecideOptions {
  /**
   * Resolve bare program names through this PATH: a segment that would be
   * allowed is downgraded to `prompt` when the name resolves via a relative
   * or writable PATH entry, or to a path `host_executable` does not list.
   */
  readonly resolve?: ResolveOptions
  /**
   * Where the command runs, for judging what its redirections write
   * (heuristics/redirections.ts). Defaults to `resolve`'s cwd and writable
   * roots; with neither, every redirection to a file is asked about.
   */
  readonly workspace?: Workspace
  /**
   * Variables the command runs with besides the sandbox's own (the
   * orchestrator's request `env`). One that changes what a shell runs
   * (`BASH_ENV`, `BASH_FUNC_…%%`, `ZDOTDIR`, `SHELLOPTS`, …: see
   * shell/shell-environment.ts) makes every shell script opaque.
   */
  readonly env?: Readonly<Record<string, string | undefined>>
}
