/**
 * Compiling the shell grammar without blocking the event loop.
 *
 * `WebAssembly.compile` is already asynchronous, but V8 compiles a wasm
 * function's body only when it is first called (lazy compilation: `--wasm-lazy-compilation`, on by default in
 * Node 20's V8), on the calling thread. The first parse therefore compiled
 * the lexer and the parser on the main thread: tens of ms with Liftoff, and
 * 1.2–1.4 s measured with the optimising compiler alone (`--no-liftoff`), the
 * order of the ~1 s reported in issue 11. So a worker thread compiles both modules (the web-tree-sitter
 * runtime and the tree-sitter-bash grammar), parses WARM_UP_SCRIPTS and walks
 * the trees the way the hints for opaque scripts do, and posts the two WebAssembly.Module
 * objects back. A Module posted between threads of one process shares its
 * compiled code (V8 keeps one NativeModule per Module), so the main thread
 * instantiates code that is already compiled.
 *
 * The worker is plain CommonJS given as a string: it must run the same way
 * from src/ under vitest, from dist/ and from the CLI bundle, none of which
 * has a worker file at a path it could name. It only requires packages whose
 * paths the main thread resolved.
 */
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import { WARM_UP_SCRIPTS } from './warm-up-scripts.js'

/** Where the runtime and the grammar are on disk. */
export interface GrammarFiles {
  /** web-tree-sitter's CommonJS entry (the worker `require`s it). */
  readonly runtimeJs: string
  readonly runtimeWasm: string
  readonly grammarWasm: string
}

/** The two modules, compiled and exercised, ready to instantiate. */
export interface CompiledGrammar {
  readonly runtime: WebAssembly.Module
  readonly grammar: WebAssembly.Module
}

const GRAMMAR = 'tree-sitter-bash/tree-sitter-bash.wasm'
const RUNTIME_WASM = 'web-tree-sitter/web-tree-sitter.wasm'

/** Resolve the three files from this module (node_modules lookup, as `import` would). */
export function grammarFiles(): GrammarFiles {
  const require = createRequire(import.meta.url)
  return { runtimeJs: require.resolve('web-tree-sitter'), runtimeWasm: require.resolve(RUNTIME_WASM), grammarWasm: require.resolve(GRAMMAR) }
}

const WORKER_SOURCE = `
'use strict'
const { parentPort, workerData } = require('node:worker_threads')
const { readFileSync } = require('node:fs')

/** Every node once, with the cursor calls a walk makes, and the calls script-hints.ts makes for opaque scripts. */
function walk(root) {
  const cursor = root.walk()
  for (let i = 1; i < root.descendantCount; i++) {
    cursor.gotoDescendant(i)
    void (cursor.nodeTypeId + cursor.currentDepth + cursor.startIndex + cursor.endIndex)
  }
  cursor.reset(root)
  while (cursor.gotoFirstChild()) void cursor.nodeTypeId
  cursor.delete()
  for (const node of root.descendantsOfType('command')) for (const child of node.namedChildren) void child.firstNamedChild
}

async function main() {
  const { runtimeJs, runtimeWasm, grammarWasm, scripts } = workerData
  const { Parser, Language } = require(runtimeJs)
  const runtime = await WebAssembly.compile(readFileSync(runtimeWasm))
  await Parser.init({
    instantiateWasm(imports, done) {
      WebAssembly.instantiate(runtime, imports).then((instance) => done(instance, runtime))
      return {}
    },
  })
  const grammar = await WebAssembly.compile(readFileSync(grammarWasm))
  const language = Language.loadSync(grammar)
  for (let id = 0; id < language.nodeTypeCount; id++) language.nodeTypeForId(id), language.nodeTypeIsNamed(id)
  const parser = new Parser()
  parser.setLanguage(language)
  for (const script of scripts) {
    const tree = parser.parse(script)
    if (!tree) continue
    const root = tree.rootNode
    void root.hasError
    walk(root)
    tree.delete()
  }
  parser.delete()
  parentPort.postMessage({ runtime, grammar })
}

main().catch((err) => parentPort.postMessage({ error: String((err && err.stack) || err) }))
`

/** Compile and exercise the grammar on a worker thread; rejects if the worker fails in any way. */
export function compileInWorker(files: GrammarFiles): Promise<CompiledGrammar> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { ...files, scripts: WARM_UP_SCRIPTS } })
    const settle = (fn: () => void): void => {
      worker.removeAllListeners()
      worker.on('error', () => {}) // a late error from terminate() has nowhere to go
      void worker.terminate()
      fn()
    }
    worker.once('message', (msg: Partial<CompiledGrammar> & { error?: string }) => {
      if (msg.runtime instanceof WebAssembly.Module && msg.grammar instanceof WebAssembly.Module) {
        const { runtime, grammar } = msg
        settle(() => resolve({ runtime, grammar }))
      } else {
        settle(() => reject(new Error(`grammar worker: ${msg.error ?? 'unexpected message'}`)))
      }
    })
    worker.once('error', (err) => settle(() => reject(err)))
    worker.once('exit', (code) => settle(() => reject(new Error(`grammar worker exited with code ${code} before answering`))))
  })
}
