/**
 * The macOS base policy (profiles/darwin/base.json): the allowances every
 * sandboxed command needs beyond its profile's paths, each with its reason.
 * Data, not code: reviewing what a sandboxed command may do on macOS means
 * reading that one file.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import * as z from 'zod/mini'
import { packageRoot } from '../../native/load.js'
import { parseWith } from '../../profile/parse-with.js'

export const baseRuleSchema = z.strictObject({
  when: z.enum(['always', 'read-roots', 'network', 'inet']),
  sbpl: z.string().check(z.minLength(1)),
  reason: z.string().check(z.minLength(1)),
})
export type BaseRule = z.infer<typeof baseRuleSchema>

const baseSchema = z.looseObject({ rules: z.array(baseRuleSchema) })

export const BASE_POLICY_PATH = join(packageRoot, 'profiles', 'darwin', 'base.json')

const cache = new Map<string, BaseRule[]>()

/** The base rules (read once per path and process). */
export function loadBasePolicy(path = BASE_POLICY_PATH): BaseRule[] {
  let rules = cache.get(path)
  if (!rules) {
    rules = parseWith(baseSchema, JSON.parse(readFileSync(path, 'utf8')), path).rules
    cache.set(path, rules)
  }
  return rules
}
