/**
 * What bin/cordon.js calls. Bundled as CommonJS (dist/cli-bundle/cli.cjs)
 * so that `cordon run` — the command whose start-up time matters — never
 * starts Node's ESM loader: it loads dist/cli-bundle/run.cjs, one CommonJS
 * bundle of the whole run path, with the V8 code cache built beside it
 * (code-cache.ts). Every other command, and `run` when that bundle is
 * missing, goes through the ESM entry (main.ts).
 */
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadBundle } from './code-cache.js'
import { processIo, type Io } from './io.js'

type RunModule = typeof import('./run.js')
type MainModule = typeof import('./main.js')

/** The directory of this module: dist/cli-bundle/ once bundled. */
const here = fileURLToPath(new URL('.', import.meta.url))

export async function cli(argv: readonly string[], io: Io = processIo): Promise<number> {
  const [cmd, ...rest] = argv
  if (cmd === 'run') {
    try {
      const bundle = loadBundle(join(here, 'run.cjs'))
      if (bundle) return await (bundle.exports as unknown as RunModule).runCommand(rest, io)
    } catch (err) {
      // The bundle itself failed to load (runCommand reports its own errors). Inline, not
      // report.ts: this file is loaded on every start and stays small.
      const message = (err as Error).message
      const options = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest
      if (options.includes('--json')) io.stdout(`${JSON.stringify({ error: { name: 'Error', code: 'E_INTERNAL', message } }, null, 2)}\n`)
      io.stderr(`cordon run: ${message}\n`)
      return 125
    }
  }
  const { main } = (await import(new URL('./main.js', import.meta.url).href)) as MainModule
  return main(argv, io)
}
