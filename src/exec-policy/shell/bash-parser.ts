/**
 * The one tree-sitter-bash parser, loaded once (WebAssembly, no native
 * build) and then used synchronously. web-tree-sitter 0.27 accepts grammar
 * ABI 13–15; tree-sitter-bash 0.25 ships an ABI 15 `tree-sitter-bash.wasm`.
 *
 * Loading never blocks the event loop for the compile: a worker thread
 * compiles and exercises both wasm modules (grammar-worker.ts) and this
 * thread only instantiates them. Every caller — warm-up, createExecPolicy,
 * the orchestrator's first decision — awaits the same promise, so nothing
 * compiles the grammar a second time, and no decision runs before it is
 * ready. Should the worker fail (no threads left, a restricted runtime), the
 * grammar loads on this thread as before: correct, but the first parse then
 * compiles here.
 */
import { Language, Parser } from 'web-tree-sitter'
import { LoadError } from '../../errors.js'
import { compileInWorker, grammarFiles, type CompiledGrammar, type GrammarFiles } from './grammar-worker.js'

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
  let files: GrammarFiles | undefined
  try {
    files = grammarFiles()
    const grammarWasm = files.grammarWasm
    const language = await compileInWorker(files)
      .then(fromCompiled)
      .catch(() => inThisThread(grammarWasm))
    const parser = new Parser()
    parser.setLanguage(language)
    return parser
  } catch (cause) {
    const tried = files ? [files.grammarWasm, files.runtimeWasm] : ['tree-sitter-bash/tree-sitter-bash.wasm']
    throw new LoadError('cannot load the tree-sitter-bash grammar', tried, 'reinstall the tree-sitter-bash and web-tree-sitter packages', cause)
  }
}

/** Instantiate the worker's modules: no compiling here, their code is already there. */
async function fromCompiled({ runtime, grammar }: CompiledGrammar): Promise<Language> {
  // Emscripten only learns of the instance through `done`: a failure is raced in beside init.
  let failed: (err: unknown) => void = () => {}
  const failure = new Promise<never>((_, reject) => (failed = reject))
  const init = Parser.init({
    // Emscripten's hook for bringing one's own module: `done(instance, module)`.
    instantiateWasm(imports: WebAssembly.Imports, done: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) {
      WebAssembly.instantiate(runtime, imports).then((instance) => done(instance, runtime), failed)
      return {}
    },
  })
  await Promise.race([init, failure])
  return Language.loadSync(grammar)
}

/** The fallback: compile on this thread (asynchronously; the first parse compiles function bodies). */
async function inThisThread(grammarWasm: string): Promise<Language> {
  await Parser.init()
  return Language.load(grammarWasm)
}
