#!/usr/bin/env node
// The CLI ships bundled (dist/cli-bundle, built by `npm run build`): start-up time matters.
// CommonJS on purpose (bin/package.json): `cordon run` starts without Node's ESM loader and
// loads its bundle with a V8 code cache (src/cli/entry.ts, src/cli/code-cache.ts).
'use strict'
const { cli } = require('../dist/cli-bundle/cli.cjs')

cli(process.argv.slice(2)).then((code) => {
  process.exitCode = code
})
