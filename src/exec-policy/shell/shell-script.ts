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
import type { Node, Parser, TreeCursor } from 'web-tree-sitter'
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
 * grammar, and agents repeat the same commands, so a small cache turns the
 * ~18 µs parse-and-walk into a map lookup.
 *
 * A split is kept only when its script comes back: the first time, the
 * script is just noted (null). Keeping the split of every one-off script made
 * the arrays and objects the walker allocates outlive young-generation GCs;
 * V8 then pretenures those allocation sites and grows the young generation,
 * and for thousands of decisions at a time each took twice as long. A
 * repeated script pays one more parse, on its second use.
 *
 * Entries are shared, so nothing may change them: the types are readonly,
 * and command-split.ts hands out copies, never the cached arrays. They are
 * not frozen: V8 leaves frozen arrays off its fast paths (find, for-of and
 * spread several times slower), which every decision would pay for.
 *
 * A full cache is emptied rather than kept in LRU order: evicting a Map's
 * oldest key walks over the holes that earlier deletions left at the front of
 * V8's table (up to a microsecond per miss), and a second, older map would
 * cost a second lookup per miss (half a microsecond once a parse has pushed
 * the map out of the CPU caches). Starting over costs a script still in use
 * its next two parses per CACHE_SIZE new scripts.
 */
const CACHE_SIZE = 512
const cache = new Map<string, ScriptSplit | null>()

export function splitScript(parser: Parser, script: string): ScriptSplit {
  const seen = cache.get(script)
  if (seen) return seen
  const split = parseAndSplit(parser, script)
  if (cache.size >= CACHE_SIZE) cache.clear()
  cache.set(script, seen === null ? split : null)
  return split
}

function parseAndSplit(parser: Parser, script: string): ScriptSplit {
  if (script.length > MAX_SCRIPT_LENGTH) return { opaque: true, reason: 'script too long to analyse', hints: [] }
  // tree-sitter-bash treats CR (and other controls) as blanks where bash keeps them in words:
  // the argv we would decide would not be the argv that runs.
  if (CONTROL_CHARS.test(script)) return { opaque: true, reason: 'control character in script', hints: [] }
  const tree = parser.parse(script)
  if (!tree) return { opaque: true, reason: 'script could not be parsed', hints: [] }
  try {
    // One root Node for everything: each `tree.rootNode` is a wasm call and a new object.
    const root = tree.rootNode
    return root.hasError ? opaque('syntax error', root, script) : walk(root, script)
  } finally {
    tree.delete()
  }
}

/**
 * One tree cursor, re-pointed at each new root. Creating a TreeCursor and
 * deleting it again registers and unregisters it with a FinalizationRegistry,
 * about a microsecond: as much as a tenth of splitting a short script.
 * Splitting is synchronous, so the cursor is never in use twice at once.
 */
let cursor: TreeCursor | undefined

function walk(root: Node, script: string): ScriptSplit {
  if (cursor) cursor.reset(root)
  else cursor = root.walk()
  const walker = new Walker(cursor, script, grammarTables(root.tree.language), root.descendantCount)
  if (!walker.statements()) return opaque(walker.reason, root, script)
  if (walker.commands.length === 0) return { opaque: true, reason: 'empty script', hints: [] }
  return { opaque: false, commands: walker.commands }
}

function opaque(reason: string, root: Node, src: string): ScriptSplit {
  return { opaque: true, reason, hints: collectHints(root, src) }
}
