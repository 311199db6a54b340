/**
 * The entry point: `await createExecPolicy({ rules: [...] })` loads rules
 * files (fail closed) and the shell grammar once; after that every
 * `decide(argv)` is synchronous and does no I/O (unless `resolve` is given).
 * The grammar compiles on a worker thread (shell/grammar-worker.ts);
 * `warmUpExecPolicy()` starts that before the rules are known.
 */
import type { Parser } from 'web-tree-sitter'
import { z } from 'zod'
import { PolicyError } from '../errors.js'
import { loadBashParser } from './shell/bash-parser.js'
import { decideCommand } from './decide.js'
import type { DecideOptions } from './types.js'
import { loadPolicy, mergePolicies, parsePolicy } from './rules/load.js'
import { decideNetwork, type NetworkDecision } from './rules/network-rule.js'
import type { CommandDecision, Policy } from './types.js'

export const ExecPolicyOptionsSchema = z.object({
  /** Rules files, loaded and merged in order. */
  rules: z.array(z.string().min(1)).optional(),
  /** In-memory rules texts (merged after `rules`), e.g. from a config store. */
  sources: z.array(z.object({ text: z.string(), filename: z.string().min(1) })).optional(),
  /** An already-built policy (merged first). */
  policy: z.custom<Policy>((v) => typeof v === 'object' && v !== null && 'rulesByProgram' in v).optional(),
})
export type ExecPolicyOptions = z.input<typeof ExecPolicyOptionsSchema>

export interface ExecPolicy {
  readonly policy: Policy
  /** Decide argv (e.g. `['bash', '-lc', 'git status && ls']`). Throws PolicyError on an empty argv. */
  decide(argv: readonly string[], options?: DecideOptions): CommandDecision
  /** Strictest `network_rule` for host/protocol; `decision` is undefined when none matched. */
  decideNetwork(host: string, protocol: string): NetworkDecision
}

/**
 * Load and compile the shell grammar now, off the event loop, so that the
 * first createExecPolicy() — and so the first decision — does not wait for
 * it. Safe to call any number of times: every caller gets the same load.
 * Rejects with a LoadError when the grammar cannot be loaded.
 */
export async function warmUpExecPolicy(): Promise<void> {
  await loadBashParser()
}

export async function createExecPolicy(options: ExecPolicyOptions = {}): Promise<ExecPolicy> {
  const parsed = ExecPolicyOptionsSchema.safeParse(options)
  if (!parsed.success) throw new PolicyError(`invalid exec-policy options: ${parsed.error.message}`, { where: 'createExecPolicy' })
  const { rules = [], sources = [], policy: base } = parsed.data
  const parts: Policy[] = base ? [base] : []
  parts.push(await loadPolicy(rules))
  for (const source of sources) parts.push(parsePolicy(source.text, source.filename))
  return makeExecPolicy(await loadBashParser(), mergePolicies(parts))
}

function makeExecPolicy(parser: Parser, policy: Policy): ExecPolicy {
  return {
    policy,
    decide(argv, options) {
      if (!Array.isArray(argv) || argv.length === 0 || argv.some((a) => typeof a !== 'string')) {
        throw new PolicyError('argv must be a non-empty array of strings', { where: 'argv' })
      }
      return decideCommand(parser, policy, argv, options)
    },
    decideNetwork: (host, protocol) => decideNetwork(policy, host, protocol),
  }
}
