// The CommonJS entry: dist/index.cjs, one esbuild bundle of dist/index.js, so
// `require('cordon')` works (package.json "exports" → "require"). Node 20
// cannot require() an ES module everywhere cordon supports (require(esm) is
// unflagged only from 20.19), and a CommonJS caller — a VS Code extension,
// an older agent runtime — should not need a dynamic import() to start a
// sandbox.
//
// Dependencies stay external (each ships CommonJS); only cordon's own code is
// bundled. import.meta.url becomes the bundle's own file URL, and the package
// root is still found by walking up from it (src/native/load.ts), so the
// addon, the launcher and profiles/ resolve as from dist/index.js.
//
// The bundle must not use import(): a CommonJS caller may run without an ESM
// loader behind it (a vm context, a bundler's CommonJS runtime).
//
// Types: TypeScript reads a .d.ts in this "type": "module" package as an ES
// module, which a CommonJS consumer may not require (TS1479). So each
// declaration file gets a .d.cts twin beside it with its relative imports
// pointing at the twins ('./x.js' → './x.cjs', which TypeScript resolves to
// './x.d.cts'): the same declarations, read as CommonJS.
import { build } from 'esbuild'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))

// zod's English messages are imported as the ESM file 'zod/v4/locales/en.js'
// (src/profile/schema.ts). Kept external, that would be a require() of an ES
// module; the CommonJS build takes zod's own CommonJS copy of it instead
// (whose module.exports is the function itself in zod 4, `.default` before).
const zodEnglishCommonJs = {
  name: 'zod-english-commonjs',
  setup(b) {
    b.onResolve({ filter: /^zod\/v4\/locales\/en\.js$/ }, () => ({ path: 'zod-en', namespace: 'cordon-cjs' }))
    b.onLoad({ filter: /.*/, namespace: 'cordon-cjs' }, () => ({ contents: "const en = require('zod/v4/locales/en.cjs'); module.exports = typeof en === 'function' ? en : en.default", loader: 'js', resolveDir: root }))
  },
}

const result = await build({
  entryPoints: [`${root}/dist/index.js`],
  outfile: `${root}/dist/index.cjs`,
  bundle: true,
  packages: 'external',
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  define: { 'import.meta.url': '__cordonImportMetaUrl' },
  banner: { js: "'use strict';var __cordonImportMetaUrl=require('node:url').pathToFileURL(__filename).href;" },
  plugins: [zodEnglishCommonJs],
  metafile: true,
  logLevel: 'warning',
})

for (const out of Object.values(result.metafile.outputs)) {
  const dynamic = out.imports.filter((i) => i.kind === 'dynamic-import')
  if (dynamic.length) throw new Error(`dist/index.cjs must not use import(): ${dynamic.map((i) => i.path).join(', ')}`)
}

/** dist/**\/*.d.ts (not the CLI's) → .d.cts twins. */
function commonJsDeclarations(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.isDirectory()) {
      if (!e.name.startsWith('cli')) commonJsDeclarations(p)
    } else if (e.name.endsWith('.d.ts')) {
      const text = readFileSync(p, 'utf8').replace(/((?:from|import)\s*\(?\s*)(['"])(\.{1,2}\/[^'"]*?)\.js\2/g, '$1$2$3.cjs$2')
      writeFileSync(p.slice(0, -'.d.ts'.length) + '.d.cts', text)
    }
  }
}
commonJsDeclarations(`${root}/dist`)
