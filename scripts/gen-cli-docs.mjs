// Write the generated blocks of docs/cli.md — each subcommand's synopsis, flag
// table and exit statuses — from the CLI's tables (src/cli/flags.ts, the ones
// the parser and `--help` read). Run after `npm run build`:
//   node scripts/gen-cli-docs.mjs           rewrite docs/cli.md
//   node scripts/gen-cli-docs.mjs --check   exit 1 if docs/cli.md is out of date
// `npm test` fails when the committed file differs (test/unit/cli/cli-docs.test.ts).
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { renderCliDocs } from '../dist/cli/cli-docs.js'

const file = fileURLToPath(new URL('../docs/cli.md', import.meta.url))
const current = readFileSync(file, 'utf8')
const next = renderCliDocs(current)
if (process.argv.includes('--check')) {
  if (next !== current) {
    console.error(`${file} is out of date: run \`npm run build && node scripts/gen-cli-docs.mjs\``)
    process.exit(1)
  }
} else if (next !== current) {
  writeFileSync(file, next)
  console.log(`wrote ${file}`)
} else {
  console.log(`${file} is up to date`)
}
