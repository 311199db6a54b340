// Bundle the CLI into dist/cli-bundle/ (esbuild, code-split so `cordon check`
// alone loads tree-sitter). Why: loading dist/ module by module — zod alone is
// dozens of files — costs the CLI more than node's own start-up; one file
// loads several times faster. Packages with native parts or wasm stay external.
//
// `cordon run` gets its own CommonJS bundle (run.cjs, loaded by cli.cjs from
// bin/cordon.js without Node's ESM loader) and a V8 code cache beside it
// (run.cjs.v8cache; src/cli/code-cache.ts), so it is not parsed and compiled
// on every start. The cache is made here, by this node: another node version
// ignores it and compiles the bundle as usual.
import { createHash } from 'node:crypto'
import { build } from 'esbuild'
import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
rmSync(`${root}/dist/cli-bundle`, { recursive: true, force: true })

// The seccomp rules, parsed once here (with the text they came from, which
// the runtime compares before using them; src/platform/linux/seccomp/seccomp-rules.ts).
{
  const { parseSeccompRules, PARSED_RULES_FILE, RULES_PARSER } = await import('../dist/platform/linux/seccomp/seccomp-rules.js')
  const file = `${root}/profiles/linux/seccomp.rules`
  const source = readFileSync(file, 'utf8')
  writeFileSync(`${root}/${PARSED_RULES_FILE}`, JSON.stringify({ parser: RULES_PARSER, source, rules: parseSeccompRules(source, file) }))
}
// zod re-exports ~50 message locales as `z.locales`; cordon's messages are
// English, and parsing the other locales alone costs tens of milliseconds.
const englishOnlyZod = {
  name: 'zod-english-only',
  setup(b) {
    b.onLoad({ filter: /zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
      contents: "export { default as en } from './en.js'",
      resolveDir: `${root}/node_modules/zod/v4/locales`,
    }))
  },
}

// Options every bundle shares.
const shared = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  external: ['node-gyp-build', 'web-tree-sitter', 'tree-sitter-bash', 'execa', 'proper-lockfile'],
  plugins: [englishOnlyZod],
  minify: true,
  metafile: true,
  logLevel: 'warning',
}

const result = await build({
  ...shared,
  entryPoints: [`${root}/dist/cli/main.js`],
  outdir: `${root}/dist/cli-bundle`,
  splitting: true,
  format: 'esm',
  banner: { js: "import { createRequire as __cordonRequire } from 'node:module'; const require = __cordonRequire(import.meta.url);" },
})

// The CommonJS bundles: import.meta.url becomes the bundle's own file URL.
const commonJs = {
  ...shared,
  format: 'cjs',
  define: { 'import.meta.url': '__cordonImportMetaUrl' },
  banner: { js: "'use strict';var __cordonImportMetaUrl=require('node:url').pathToFileURL(__filename).href;" },
}
const runBundle = `${root}/dist/cli-bundle/run.cjs`
await build({ ...commonJs, entryPoints: [`${root}/dist/cli/entry.js`], outfile: `${root}/dist/cli-bundle/cli.cjs` })
// node-gyp-build is plain JS with no dynamic requires of its own: bundled
// here, `cordon run` does not resolve and compile it from node_modules (~4 ms).
const runResult = await build({
  ...commonJs,
  external: shared.external.filter((e) => e !== 'node-gyp-build'),
  entryPoints: [`${root}/dist/cli/run.js`],
  outfile: runBundle,
})
// run.cjs is compiled by vm.Script, which has no ESM loader behind import().
for (const out of Object.values(runResult.metafile.outputs)) {
  const dynamic = out.imports.filter((i) => i.kind === 'dynamic-import')
  if (dynamic.length) throw new Error(`run.cjs must not use import(): ${dynamic.map((i) => i.path).join(', ')}`)
}
const { buildIdLine, cacheFileFor, makeCodeCache } = await import('../dist/cli/code-cache.js')
appendFileSync(runBundle, buildIdLine(createHash('sha256').update(readFileSync(runBundle)).digest('hex').slice(0, 32)))
try {
  // Warm-up: the top level (zod schemas, tables) runs; argument parsing runs once; then a run
  // with the defaults is planned (not started: nothing is spawned) — where this machine can
  // plan one at all (the addon is built; another OS plans with its own backend).
  writeFileSync(
    cacheFileFor(runBundle),
    makeCodeCache(runBundle, (m) => {
      m.optionsFromArgs(['--read', '/', '--', '/bin/true'])
      try {
        m.planFromArgs(['--', '/bin/true'])
      } catch (err) {
        console.warn(`bundle-cli: the code cache covers argument parsing only (planning a run failed here: ${err.message})`)
      }
    }),
  )
} catch (err) {
  console.warn(`bundle-cli: no V8 code cache for run.cjs (the CLI compiles it at start instead): ${err.message}`)
}

if (process.argv.includes('--analyze')) {
  const { analyzeMetafile } = await import('esbuild')
  console.log(await analyzeMetafile(result.metafile))
  console.log(await analyzeMetafile(runResult.metafile))
}
