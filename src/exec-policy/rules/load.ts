/**
 * Loading rules files. Fail closed: a file that is missing, unreadable or
 * malformed is a PolicyError naming `file:line:col`, never an empty policy,
 * because an empty policy silently turns every `forbidden` into the default.
 */
import { readFile } from 'node:fs/promises'
import { PolicyError } from '../../errors.js'
import { makeBuiltins } from './builtins.js'
import { evaluate } from './evaluator.js'
import { parseRules } from './parser.js'
import { PolicyBuilder } from './policy-builder.js'
import type { Policy, PrefixRule } from '../types.js'

/** Parse one rules file's text; `filename` is used in rule locations and errors. */
export function parsePolicy(text: string, filename: string): Policy {
  const builder = new PolicyBuilder(filename)
  evaluate(parseRules(text, filename), filename, makeBuiltins(builder))
  return builder.build()
}

/** Read, parse and merge rules files in order. */
export async function loadPolicy(files: readonly string[]): Promise<Policy> {
  const policies: Policy[] = []
  for (const file of files) policies.push(parsePolicy(await readRules(file), file))
  return mergePolicies(policies)
}

async function readRules(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8')
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code ?? 'EIO'
    // No position exists in a file we could not read; 1:1 keeps the `file:line:col` shape.
    throw new PolicyError(`cannot read rules file (${code})`, { where: `${file}:1:1`, cause })
  }
}

/**
 * Merge policies: rules are kept in order and all of them are consulted (the
 * strictest match wins, so order never weakens anything); network rules are
 * concatenated; for `host_executable` the last declaration of a name wins,
 * as within a single file.
 */
export function mergePolicies(policies: readonly Policy[]): Policy {
  const rulesByProgram = new Map<string, PrefixRule[]>()
  const hostExecutables = new Map<string, readonly string[]>()
  for (const policy of policies) {
    for (const [program, rules] of policy.rulesByProgram) {
      rulesByProgram.set(program, [...(rulesByProgram.get(program) ?? []), ...rules])
    }
    for (const [name, paths] of policy.hostExecutables) hostExecutables.set(name, paths)
  }
  return {
    files: policies.flatMap((p) => p.files),
    rulesByProgram,
    networkRules: policies.flatMap((p) => p.networkRules),
    hostExecutables,
  }
}

/** The policy with no rules: every command goes to the heuristics. */
export const EMPTY_POLICY: Policy = mergePolicies([])
