/**
 * Splits a shell script (the SCRIPT of `bash -lc SCRIPT`) into plain
 * commands using the tree-sitter-bash syntax tree, never regexes.
 *
 * Accepted: commands made only of bare words and quoted strings without
 * expansions, joined by `&&`, `||`, `;`, `|` or newlines (tree-sitter gives
 * top-level statements separated by newlines as siblings, exactly like `;`),
 * plus comments. Anything else — redirections, `$()`/backticks, variables,
 * globs, brace or tilde expansion, subshells, control flow, functions,
 * background `&`, `X=1 cmd`, heredocs, parse errors — makes the script
 * opaque: the caller must treat it as one command that needs approval.
 */
import type { Node, Parser } from 'web-tree-sitter'
import { collectHints } from './script-hints.js'
import { grammarTables } from './grammar-tables.js'
import { Walker } from './script-walker.js'

export type ScriptSplit =
  | { readonly opaque: false; readonly commands: readonly (readonly string[])[] }
  /** `hints`: best-effort argv prefixes found inside, so a forbidden rule can still fire. */
  | { readonly opaque: true; readonly reason: string; readonly hints: readonly (readonly string[])[] }

/** Longer scripts are not parsed at all (they are opaque); this bounds parse time. */
const MAX_SCRIPT_LENGTH = 64 * 1024
const CONTROL_CHARS = /[\x00-\x08\x0b-\x1f\x7f]/

/**
 * Recently split scripts. The split depends only on the script text and the
 * grammar, and agents repeat the same commands, so a small LRU turns the
 * ~15 µs parse-and-walk into a map lookup. Entries are frozen: shared safely.
 */
const CACHE_SIZE = 512
const cache = new Map<string, ScriptSplit>()

export function splitScript(parser: Parser, script: string): ScriptSplit {
  const hit = cache.get(script)
  if (hit) {
    cache.delete(script)
    cache.set(script, hit)
    return hit
  }
  const split = deepFreeze(parseAndSplit(parser, script))
  cache.set(script, split)
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string)
  return split
}

function deepFreeze(split: ScriptSplit): ScriptSplit {
  for (const argv of split.opaque ? split.hints : split.commands) Object.freeze(argv)
  Object.freeze(split.opaque ? split.hints : split.commands)
  return Object.freeze(split)
}

function parseAndSplit(parser: Parser, script: string): ScriptSplit {
  if (script.length > MAX_SCRIPT_LENGTH) return { opaque: true, reason: 'script too long to analyse', hints: [] }
  // tree-sitter-bash treats CR (and other controls) as blanks where bash keeps them in words:
  // the argv we would decide would not be the argv that runs.
  if (CONTROL_CHARS.test(script)) return { opaque: true, reason: 'control character in script', hints: [] }
  const tree = parser.parse(script)
  if (!tree) return { opaque: true, reason: 'script could not be parsed', hints: [] }
  const cursor = tree.walk()
  try {
    if (tree.rootNode.hasError) return opaque('syntax error', tree.rootNode, script)
    const walker = new Walker(cursor, script, grammarTables(tree.language))
    if (!walker.statements()) return opaque(walker.reason, tree.rootNode, script)
    if (walker.commands.length === 0) return { opaque: true, reason: 'empty script', hints: [] }
    return { opaque: false, commands: walker.commands }
  } finally {
    cursor.delete()
    tree.delete()
  }
}

function opaque(reason: string, root: Node, src: string): ScriptSplit {
  return { opaque: true, reason, hints: collectHints(root, src) }
}
