/**
 * Best-effort command prefixes inside a script we refused to split, so a
 * `forbidden` rule still fires for `rm -rf / > /dev/null`. These only ever
 * make a decision stricter; they never allow anything.
 */
import type { Node } from 'web-tree-sitter'
import { numberWord, unescapeBareWord, wordHasExpansion } from './shell-words.js'

/** For an opaque script: every `command` whose leading words are plain, up to the first non-plain one. */
export function collectHints(root: Node, src: string): string[][] {
  const hints: string[][] = []
  for (const node of root.descendantsOfType('command')) {
    const argv: string[] = []
    for (const child of node?.namedChildren ?? []) {
      const target = child?.type === 'command_name' ? child.firstNamedChild : child
      const word = target ? hintWord(target.type, src.slice(target.startIndex, target.endIndex)) : undefined
      if (word === undefined) break
      argv.push(word)
    }
    if (argv.length > 0 && argv[0] !== '') hints.push(argv)
  }
  return hints
}

function hintWord(type: string, text: string): string | undefined {
  if (type === 'raw_string') return text.slice(1, -1)
  if (type === 'number') return numberWord(text)?.value
  if (type !== 'word') return undefined
  const part = unescapeBareWord(text)
  return wordHasExpansion(part.skeleton) ? undefined : part.value
}
