/**
 * Walks a tree-sitter-bash syntax tree with one cursor and collects plain
 * commands, refusing (with a reason) at the first node that is not a
 * command, a list/pipeline of them, a separator (`&&` `||` `;` `|`), a
 * comment, or a word without expansions.
 *
 * Every cursor call crosses the JS/wasm boundary and costs more than the
 * JS around it, so the walk visits each node once, in document order, by
 * descendant index: one move and one type id per node, plus its depth when
 * it follows a leaf. Walking by first-child/next-sibling/parent instead pays
 * a failing next-sibling and a goto-parent for every node with children, and
 * in a short script that is most of them. A node's children are the nodes
 * that follow it one level deeper; every handler below consumes its node and
 * the node's whole subtree, so the next node is always a sibling or a
 * sibling of an ancestor.
 */
import type { TreeCursor } from 'web-tree-sitter'
import { PolicyError } from '../../errors.js'
import type { GrammarTables } from './grammar-tables.js'
import { numberWord, unescapeBareWord, unescapeDoubleQuoted, wordHasExpansion } from './shell-words.js'

const SEPARATORS = new Set(['&&', '||', ';', '|'])

/**
 * Lists nest one level per operator (`a && b && c` is list(list(a, b), c)),
 * and statements() recurses per level: ~10,000 chained `&&` (30 KB) overflow
 * the stack. Deeper than this is refused with a PolicyError, never a RangeError.
 */
const MAX_LIST_NESTING = 1000

interface Part {
  readonly value: string
  /** The unquoted text with escaped/quoted characters masked: where expansions would be seen. */
  readonly skeleton: string
}

export class Walker {
  readonly commands: string[][] = []
  reason = ''

  /** Descendant index of the node under the cursor (0 is the root). */
  private index = 0
  /** Type, named-ness and depth of the node under the cursor; depth -1 once past the last node. */
  private type = ''
  private named = false
  private depth = 0

  /** `count`: the root's descendant count, itself included. The cursor must be on the root. */
  constructor(
    private readonly c: TreeCursor,
    private readonly src: string,
    private readonly grammar: GrammarTables,
    private readonly count: number,
  ) {}

  /** Move to the next node in document order (children before siblings). */
  private advance(): void {
    if (++this.index >= this.count) {
      this.depth = -1
      return
    }
    this.c.gotoDescendant(this.index)
    this.look()
    this.depth = this.c.currentDepth
  }

  private look(): void {
    const id = this.c.nodeTypeId
    this.type = this.grammar.types[id] ?? 'ERROR'
    this.named = this.grammar.named[id] ?? false
  }

  /**
   * Step into the current node, which should have children: returns its
   * depth; its children are the following nodes deeper than that. A first
   * child is one level down, so going there by first-child saves asking the
   * depth (a node without children is left the ordinary way).
   */
  private enter(): number {
    const depth = this.depth
    if (!this.c.gotoFirstChild()) {
      this.advance()
      return depth
    }
    this.index++
    this.look()
    this.depth = depth + 1
    return depth
  }

  /** Pass over the current node, normally a leaf, without looking inside it. */
  private skip(): void {
    const depth = this.depth
    do this.advance()
    while (this.depth > depth)
  }

  /** Node on program / list / pipeline: every child must be a command, a nested list, or a separator. */
  statements(nesting = 0): boolean {
    if (nesting > MAX_LIST_NESTING) {
      throw new PolicyError(`the script nests lists more than ${MAX_LIST_NESTING} deep (a && b && … or a || b || …): too deep to analyse`, { where: 'command' })
    }
    const depth = this.enter()
    while (this.depth > depth) {
      const type = this.type
      if (!this.named) {
        if (!SEPARATORS.has(type)) return this.reject(`operator '${type}'`)
        this.skip()
      } else if (type === 'command') {
        if (!this.command()) return false
      } else if (type === 'list' || type === 'pipeline') {
        if (!this.statements(nesting + 1)) return false
      } else if (type === 'comment') {
        this.skip()
      } else {
        return this.reject(type)
      }
    }
    return true
  }

  private command(): boolean {
    const depth = this.enter()
    if (this.depth <= depth) return this.reject('empty command')
    if (this.type !== 'command_name') return this.reject(`${this.type} in command`)
    const argv: string[] = []
    while (this.depth > depth) {
      const isName = this.type === 'command_name'
      const nameDepth = isName ? this.enter() : depth
      if (isName && this.depth <= nameDepth) return this.reject('empty command name')
      const at = this.index
      const part = this.word()
      if (part === undefined) return false
      if (wordHasExpansion(part.skeleton)) return this.reject(`expansion in word ${JSON.stringify(this.textOf(at))}`)
      argv.push(part.value)
      // The program is command_name's first child (the grammar gives it no other).
      if (isName) while (this.depth > nameDepth) this.skip()
    }
    this.commands.push(argv)
    return true
  }

  /** One argument: a word, a number, a quoted string, or a concatenation of those. */
  private word(): Part | undefined {
    switch (this.type) {
      case 'word':
        return unescapeBareWord(this.leaf())
      case 'number':
        // The skeleton is the text: in `5[1]` (number, word, number, word) the bracket still shows.
        return numberWord(this.leaf()) ?? this.rejectPart('expansion in number')
      case 'raw_string':
        return { value: this.leaf().slice(1, -1), skeleton: 'Q' }
      case 'string':
        return this.doubleQuoted()
      case 'concatenation':
        return this.concatenation()
      default:
        return this.rejectPart(this.type)
    }
  }

  /** The text of the current node, which is then passed over. */
  private leaf(): string {
    const text = this.text()
    this.skip()
    return text
  }

  private doubleQuoted(): Part | undefined {
    const text = this.text()
    const depth = this.enter()
    while (this.depth > depth) {
      const plain = this.named ? this.type === 'string_content' : this.type === '"'
      if (!plain) return this.rejectPart(`${this.type} in string`)
      this.skip()
    }
    const value = unescapeDoubleQuoted(text.slice(1, -1))
    return value === undefined ? this.rejectPart('expansion in string') : { value, skeleton: 'Q' }
  }

  private concatenation(): Part | undefined {
    let value = ''
    let skeleton = ''
    const depth = this.enter()
    if (this.depth <= depth) return this.rejectPart('empty concatenation')
    while (this.depth > depth) {
      if (!this.named || this.type === 'concatenation') return this.rejectPart(`${this.type} in word`)
      const part = this.word()
      if (part === undefined) return undefined
      value += part.value
      skeleton += part.skeleton
    }
    return { value, skeleton }
  }

  private text(): string {
    return this.src.slice(this.c.startIndex, this.c.endIndex)
  }

  /** Text of an earlier node, for a refusal message (moves the cursor back; the walk is over). */
  private textOf(index: number): string {
    this.c.gotoDescendant(index)
    return this.text()
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
