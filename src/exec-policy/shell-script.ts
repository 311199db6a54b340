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
import type { Language, Node, Parser, TreeCursor } from 'web-tree-sitter'
import { wordHasExpansion, unescapeBareWord, unescapeDoubleQuoted } from './shell-words.js'

export type ScriptSplit =
  | { readonly opaque: false; readonly commands: readonly (readonly string[])[] }
  /** `hints`: best-effort argv prefixes found inside, so a forbidden rule can still fire. */
  | { readonly opaque: true; readonly reason: string; readonly hints: readonly (readonly string[])[] }

/** Longer scripts are not parsed at all (they are opaque); this bounds parse time. */
const MAX_SCRIPT_LENGTH = 64 * 1024
const SEPARATORS = new Set(['&&', '||', ';', '|'])

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

/** Node type names and named-ness by type id, so the walk asks wasm one question per node. */
interface GrammarTables {
  readonly types: readonly string[]
  readonly named: readonly boolean[]
}

const tables = new WeakMap<Language, GrammarTables>()

function grammarTables(language: Language): GrammarTables {
  let t = tables.get(language)
  if (!t) {
    const types: string[] = []
    const named: boolean[] = []
    for (let id = 0; id < language.nodeTypeCount; id++) {
      types.push(language.nodeTypeForId(id) ?? 'ERROR')
      named.push(language.nodeTypeIsNamed(id))
    }
    t = { types, named }
    tables.set(language, t)
  }
  return t
}

interface Part {
  readonly value: string
  /** The unquoted text with escaped/quoted characters masked: where expansions would be seen. */
  readonly skeleton: string
}

class Walker {
  readonly commands: string[][] = []
  reason = ''

  /** Type and named-ness of the node under the cursor, refreshed by `look()`. */
  private type = ''
  private named = false

  constructor(
    private readonly c: TreeCursor,
    private readonly src: string,
    private readonly grammar: GrammarTables,
  ) {}

  private look(): void {
    const id = this.c.nodeTypeId
    this.type = this.grammar.types[id] ?? 'ERROR'
    this.named = this.grammar.named[id] ?? false
  }

  /** Cursor on program / list / pipeline: every child must be a command, a nested list, or a separator. */
  statements(): boolean {
    const c = this.c
    if (!c.gotoFirstChild()) return true
    do {
      this.look()
      const type = this.type
      if (!this.named) {
        if (!SEPARATORS.has(type)) return this.reject(`operator '${type}'`)
      } else if (type === 'command') {
        if (!this.command()) return false
      } else if (type === 'list' || type === 'pipeline') {
        if (!this.statements()) return false
      } else if (type !== 'comment') {
        return this.reject(type)
      }
    } while (c.gotoNextSibling())
    c.gotoParent()
    return true
  }

  private command(): boolean {
    const c = this.c
    if (!c.gotoFirstChild()) return this.reject('empty command')
    this.look()
    if (this.type !== 'command_name') return this.reject(`${this.type} in command`)
    const argv: string[] = []
    do {
      this.look()
      const isName = this.type === 'command_name'
      if (isName && !c.gotoFirstChild()) return this.reject('empty command name')
      if (isName) this.look()
      const part = this.word()
      if (part === undefined) return false
      if (wordHasExpansion(part.skeleton)) return this.reject(`expansion in word ${JSON.stringify(this.text())}`)
      argv.push(part.value)
      if (isName) c.gotoParent()
    } while (c.gotoNextSibling())
    c.gotoParent()
    this.commands.push(argv)
    return true
  }

  /** One argument: a word, a number, a quoted string, or a concatenation of those. */
  private word(): Part | undefined {
    const text = this.text()
    switch (this.type) {
      case 'word':
        return unescapeBareWord(text)
      case 'number':
        return /^[0-9]+$/.test(text) ? { value: text, skeleton: text } : this.rejectPart('number')
      case 'raw_string':
        return { value: text.slice(1, -1), skeleton: 'Q' }
      case 'string':
        return this.doubleQuoted(text)
      case 'concatenation':
        return this.concatenation()
      default:
        return this.rejectPart(this.type)
    }
  }

  private doubleQuoted(text: string): Part | undefined {
    const c = this.c
    if (c.gotoFirstChild()) {
      do {
        this.look()
        const plain = this.named ? this.type === 'string_content' : this.type === '"'
        if (!plain) return this.rejectPart(`${this.type} in string`)
      } while (c.gotoNextSibling())
      c.gotoParent()
    }
    const value = unescapeDoubleQuoted(text.slice(1, -1))
    return value === undefined ? this.rejectPart('expansion in string') : { value, skeleton: 'Q' }
  }

  private concatenation(): Part | undefined {
    const c = this.c
    let value = ''
    let skeleton = ''
    if (!c.gotoFirstChild()) return this.rejectPart('empty concatenation')
    do {
      this.look()
      if (!this.named || this.type === 'concatenation') return this.rejectPart(`${this.type} in word`)
      const part = this.word()
      if (part === undefined) return undefined
      value += part.value
      skeleton += part.skeleton
    } while (c.gotoNextSibling())
    c.gotoParent()
    return { value, skeleton }
  }

  private text(): string {
    return this.src.slice(this.c.startIndex, this.c.endIndex)
  }

  private reject(reason: string): false {
    this.reason = reason
    return false
  }

  private rejectPart(reason: string): undefined {
    this.reason = reason
    return undefined
  }
}

/** For an opaque script: every `command` whose leading words are plain, up to the first non-plain one. */
function collectHints(root: Node, src: string): string[][] {
  const hints: string[][] = []
  for (const node of root.descendantsOfType('command')) {
    const argv: string[] = []
    for (const child of node?.namedChildren ?? []) {
      const target = child?.type === 'command_name' ? child.firstNamedChild : child
      const word = target ? hintWord(target.type, src.slice(target.startIndex, target.endIndex)) : undefined
      if (word === undefined) break
      argv.push(word)
    }
    if (argv.length > 0) hints.push(argv)
  }
  return hints
}

function hintWord(type: string, text: string): string | undefined {
  if (type === 'raw_string') return text.slice(1, -1)
  if (type !== 'word') return undefined
  const part = unescapeBareWord(text)
  return wordHasExpansion(part.skeleton) ? undefined : part.value
}
