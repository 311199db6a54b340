/**
 * The one tree-sitter-bash parser, loaded once (WebAssembly, no native
 * build) and then used synchronously. web-tree-sitter 0.27 accepts grammar
 * ABI 13–15; tree-sitter-bash 0.25 ships an ABI 15 `tree-sitter-bash.wasm`.
 */
import { createRequire } from 'node:module'
import { Language, Parser } from 'web-tree-sitter'
import { LoadError } from '../../errors.js'

const GRAMMAR = 'tree-sitter-bash/tree-sitter-bash.wasm'

let loading: Promise<Parser> | undefined

/** Load the grammar (first call) or return the already-loaded parser. Safe to call concurrently. */
export function loadBashParser(): Promise<Parser> {
  loading ??= load().catch((err: unknown) => {
    loading = undefined // let a later call retry instead of caching the failure
    throw err
  })
  return loading
}

async function load(): Promise<Parser> {
  let wasmPath = GRAMMAR
  try {
    wasmPath = createRequire(import.meta.url).resolve(GRAMMAR)
    await Parser.init()
    const language = await Language.load(wasmPath)
    const parser = new Parser()
    parser.setLanguage(language)
    return parser
  } catch (cause) {
    throw new LoadError('cannot load the tree-sitter-bash grammar', [wasmPath], 'reinstall the tree-sitter-bash and web-tree-sitter packages', cause)
  }
}
