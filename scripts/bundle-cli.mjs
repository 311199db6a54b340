// Bundle the CLI into dist/cli-bundle/ (esbuild, code-split so `cordon check`
// alone loads tree-sitter). Why: loading dist/ module by module — zod alone is
// dozens of files — costs the CLI more than node's own start-up; one file
// loads several times faster. Packages with native parts or wasm stay external.
import { build } from 'esbuild'
import { rmSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
rmSync(`${root}/dist/cli-bundle`, { recursive: true, force: true })
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

const result = await build({
  entryPoints: [`${root}/dist/cli/main.js`],
  outdir: `${root}/dist/cli-bundle`,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['node-gyp-build', 'web-tree-sitter', 'tree-sitter-bash', 'execa', 'proper-lockfile'],
  plugins: [englishOnlyZod],
  banner: { js: "import { createRequire as __cordonRequire } from 'node:module'; const require = __cordonRequire(import.meta.url);" },
  minify: true,
  metafile: true,
  logLevel: 'warning',
})

if (process.argv.includes('--analyze')) {
  const { analyzeMetafile } = await import('esbuild')
  console.log(await analyzeMetafile(result.metafile))
}
