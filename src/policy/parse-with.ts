/** Validate input with a zod schema; the first issue becomes a PolicyError naming the field. */
import type { z } from 'zod'
import { PolicyError } from '../errors.js'

export function parseWith<S extends z.ZodType>(schema: S, input: unknown, where: string): z.output<S> {
  const r = schema.safeParse(input)
  if (r.success) return r.data
  const issue = r.error.issues[0]!
  throw new PolicyError(issue.message, { where: `${where}: ${issue.path.length ? issue.path.join('.') : '(root)'}`, cause: r.error })
}
