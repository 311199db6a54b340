/**
 * Walks a tree-sitter-bash syntax tree with one cursor and collects plain
 * commands, refusing (with a reason) at the first node that is not a
 * command, a list/pipeline of them, a separator (`&&` `||` `;` `|`), a
 * comment, or a word without expansions. Asks wasm one question per node
 * where it can: every cursor call crosses the JS/wasm boundary.
 */
import type { TreeCursor } from 'web-tree-sitter'
import type { GrammarTables } from './grammar-tables.js'
import { unescapeBareWord, unescapeDoubleQuoted, wordHasExpansion } from './shell-words.js'

const SEPARATORS = new Set(['&&', '||', ';', '|'])

interface Part {
  readonly value: string
  /** The unquoted text with escaped/quoted characters masked: where expansions would be seen. */
  readonly skeleton: string
}

export class Walker {
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

