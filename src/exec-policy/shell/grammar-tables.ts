/**
 * Per-grammar lookup tables built once, so the shell walker can learn a
 * node's type name and named-ness from a single wasm call (its type id).
 */
import type { Language } from 'web-tree-sitter'

/** Node type names and named-ness by type id, so the walk asks wasm one question per node. */
export interface GrammarTables {
  readonly types: readonly string[]
  readonly named: readonly boolean[]
}

const tables = new WeakMap<Language, GrammarTables>()

export function grammarTables(language: Language): GrammarTables {
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
