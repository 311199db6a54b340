/**
 * Tool names: `{ namespace?, name }`. Two names are the same tool only
 * when both parts are equal: `mcp__calendar/create_event` and a local
 * `create_event` are different tools, and no spelling of one can reach
 * the other (the key is structured, never a joined string).
 */
import { z } from 'zod'
import type { ToolName } from './types.js'

/** Letters, digits, `_` and `-` (what the model providers accept in a name), 1–64 characters. */
const part = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'a tool name or namespace is 1–64 letters, digits, _ or -')

export const toolNameSchema = z.object({ namespace: part.optional(), name: part }).strict()

/** The map key of a name: structured (JSON of both parts), so no name can be spelled to equal another. */
export function nameKey(n: ToolName): string {
  return JSON.stringify([n.namespace ?? null, n.name])
}

/** For people and messages: `namespace/name`, or `name`. */
export function displayName(n: ToolName): string {
  return n.namespace !== undefined ? `${n.namespace}/${n.name}` : n.name
}
