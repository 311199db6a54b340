/** Validate input with a zod schema; the first issue becomes a PolicyError naming the field. */
import { safeParse, type $ZodType, type output } from 'zod/v4/core'
import { PolicyError } from '../errors.js'

const JITLESS = { jitless: true } as const

/** Takes zod's chained (orchestrator) and zod/mini (profile, sandbox options) schemas alike: both are core schemas. */
export function parseWith<S extends $ZodType>(schema: S, input: unknown, where: string): output<S> {
  // jitless: zod's eval-generated fast path pays off for hot loops; cordon
  // parses a few small objects per sandbox or run, where generating and
  // compiling that code (no V8 code cache can hold it) costs more than it saves.
  const r = safeParse(schema, input, JITLESS)
  if (r.success) return r.data
  const issue = r.error.issues[0]!
  throw new PolicyError(issue.message, { where: `${where}: ${issue.path.length ? issue.path.join('.') : '(root)'}`, cause: r.error })
}
