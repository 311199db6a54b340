/**
 * The client-side tool search: the model sends a query and gets back the
 * specs of the deferred tools of its step that match best, which it may
 * then call (they are registered; only their specs were kept out of the
 * initial list). Ranking: each query word scores 3 in a tool's name or
 * namespace, 1 in its description or keywords; ties keep registration
 * order. A tool with no matching word is never returned.
 *
 * A query is at most MAX_QUERY_CHARS (longer: a model-readable failure) and
 * its first MAX_QUERY_TERMS distinct words count: the ranking runs on the
 * caller's event loop, and an 8 MiB query of a million words stalled it for
 * seconds.
 */
import { z } from 'zod'
import { modelSpecs } from '../model-specs.js'
import type { Tool, ToolContext, ToolOutput } from '../types.js'

export const DEFAULT_SEARCH_LIMIT = 8
const MAX_SEARCH_LIMIT = 50
/** Characters of a query: what a search for a tool needs, many times over. */
export const MAX_QUERY_CHARS = 2048
/** Distinct words of a query that count (the rest are ignored). */
export const MAX_QUERY_TERMS = 64

const inputSchema = z
  .object({
    // Bounded before any word is split off: the ranking is synchronous (one stalled event loop per huge query).
    query: z.string().max(MAX_QUERY_CHARS, `the query is longer than ${MAX_QUERY_CHARS} characters; search with a few words`),
    limit: z.number().int().positive().optional(),
  })
  .strict()

export function toolSearchTool(options: { limit?: number; description?: string } = {}): Tool {
  return {
    name: { name: 'tool_search' },
    spec: { kind: 'tool_search', description: options.description ?? 'Search the available tools that are not listed yet by what they do; returns the tools found, which can then be called.' },
    exposure: 'direct',
    parallel: true,
    handler: async (input, ctx) => search(input, ctx, options.limit ?? DEFAULT_SEARCH_LIMIT),
  }
}

async function search(raw: unknown, ctx: ToolContext, defaultLimit: number): Promise<ToolOutput> {
  const parsed = inputSchema.safeParse(raw)
  if (!parsed.success) return { kind: 'text', text: `tool_search: ${parsed.error.issues[0]?.message ?? 'bad input'}`, success: false }
  const limit = Math.min(parsed.data.limit ?? defaultLimit, MAX_SEARCH_LIMIT)
  const found = rank(ctx.step.registry.deferred(), parsed.data.query).slice(0, limit)
  return { kind: 'search', tools: modelSpecs(found, (ns) => ctx.step.registry.namespaceDescription(ns)) }
}

/** Deferred tools with at least one query word (each distinct word once, the first MAX_QUERY_TERMS), best first. */
export function rank(tools: readonly Tool[], query: string): Tool[] {
  const terms = [...new Set(words(query))].slice(0, MAX_QUERY_TERMS)
  if (terms.length === 0) return []
  const scored = tools.map((tool, i) => ({ tool, i, score: score(tool, terms) }))
  return scored
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .map((s) => s.tool)
}

function score(tool: Tool, terms: readonly string[]): number {
  const name = new Set(words(`${tool.name.namespace ?? ''} ${tool.name.name}`))
  const description = 'description' in tool.spec ? tool.spec.description : ''
  const text = new Set(words(`${description} ${(tool.keywords ?? []).join(' ')}`))
  return terms.reduce((sum, t) => sum + (name.has(t) ? 3 : 0) + (text.has(t) ? 1 : 0), 0)
}

/** Lower-case words; `create_event` and `createEvent` give `create`, `event`. */
function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1)
}
