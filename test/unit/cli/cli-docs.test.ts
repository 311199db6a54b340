/**
 * docs/cli.md documents every flag and exit status from the same tables the
 * parser and `--help` read (src/cli/flags.ts): the generated blocks must
 * match the tables, and scripts/gen-cli-docs.mjs must keep them so.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { commandBlock, markers, renderCliDocs } from '../../../src/cli/cli-docs.js'
import { COMMANDS, RUN } from '../../../src/cli/flags.js'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const docPath = `${root}docs/cli.md`
const doc = readFileSync(docPath, 'utf8')

describe('docs/cli.md', () => {
  it('is up to date with the flag tables (else: npm run build && node scripts/gen-cli-docs.mjs)', () => {
    expect(renderCliDocs(doc) === doc).toBe(true)
  })

  it('has a generated block for every subcommand, naming every flag and exit status', () => {
    for (const spec of COMMANDS) {
      const { begin, end } = markers(spec)
      const block = doc.slice(doc.indexOf(begin), doc.indexOf(end))
      expect(block, spec.name).toContain(commandBlock(spec))
      for (const f of spec.flags) expect(block).toContain(`\`${f.name}\``)
      for (const e of spec.exits) expect(block).toContain(`| \`${e.code}\` |`)
    }
    // The flags the issue asked for by name, so that a table that lost one fails here too.
    expect(RUN.flags.map((f) => f.name)).toEqual(
      expect.arrayContaining(['--read', '--write', '--cwd', '--timeout', '--compat', '--mode', '--profile', '--json', '--deny-read', '--network', '--allow-host', '--deny-host', '--help']),
    )
  })

  it('a stale block is rewritten, and a missing one is an error', () => {
    const { begin } = markers(RUN)
    const stale = doc.replace('| `--read` |', '| `--reed` |')
    expect(stale).not.toBe(doc)
    expect(renderCliDocs(stale)).toBe(doc)
    expect(() => renderCliDocs(doc.replace(begin, ''))).toThrow(/no generated block for cordon run/)
  })

  it('scripts/gen-cli-docs.mjs --check passes on the committed file', () => {
    const r = spawnSync(process.execPath, ['scripts/gen-cli-docs.mjs', '--check'], { cwd: root, encoding: 'utf8' })
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
  })
})
