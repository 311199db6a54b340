/** Validate input with a zod schema; the first issue becomes a PolicyError naming the field. */
import type { $ZodType, output, util } from 'zod/v4/core'
import { PolicyError } from '../errors.js'

const JITLESS = { jitless: true } as const

/** A zod schema of either API: chained (orchestrator) or zod/mini (profile, sandbox options). */
type Parseable = $ZodType & { safeParse(input: unknown, params: { jitless: boolean }): util.SafeParseResult<unknown> }

export function parseWith<S extends Parseable>(schema: S, input: unknown, where: string): output<S> {
  // jitless: zod's eval-generated fast path pays off for hot loops; cordon
  // parses a few small objects per sandbox or run, where generating and
  // compiling that code (no V8 code cache can hold it) costs more than it saves.
  // The schema's own method: the error in `cause` is then that API's (a chained
  // schema's ZodError keeps .format()/.flatten()).
  const r = schema.safeParse(input, JITLESS)
  if (r.success) return r.data as output<S>
  const issue = r.error.issues[0]!
  throw new PolicyError(issue.message, { where: `${where}: ${issue.path.length ? issue.path.join('.') : '(root)'}`, cause: r.error })
}
