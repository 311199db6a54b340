/**
 * The generated parts of docs/cli.md: each subcommand's synopsis, flag table
 * and exit statuses, from the tables in flags.ts — the ones the parser and
 * `--help` read. scripts/gen-cli-docs.mjs writes them into the file;
 * test/unit/cli/cli-docs.test.ts fails when the committed file is stale.
 * Not on any CLI path (nothing the CLI runs imports it).
 */
import { COMMANDS, type CommandSpec, type Flag } from './flags.js'
import { synopsis, wrap } from './help.js'

/** The markers around a subcommand's generated block. */
export function markers(spec: CommandSpec): { begin: string; end: string } {
  return {
    begin: `<!-- generated: cordon ${spec.name} (scripts/gen-cli-docs.mjs, from src/cli/flags.ts; do not edit) -->`,
    end: `<!-- end generated: cordon ${spec.name} -->`,
  }
}

/** Text for a table cell: `|` would end the cell, a newline the row. */
const cell = (s: string): string => s.replaceAll('|', '\\|').replaceAll('\n', ' ')
const code = (s: string): string => cell(`\`${s}\``)

function flagCell(f: Flag): string {
  return f.short ? `${code(f.short)}, ${code(f.name)}` : code(f.name)
}

function valueCell(f: Flag): string {
  if (!f.value) return '—'
  if (f.choices) return f.choices.map(code).join(' \\| ')
  return f.variadic ? `${code(f.value)} (one or more)` : code(f.value)
}

function flagTable(spec: CommandSpec): string[] {
  return [
    '| flag | value | repeatable | default | description |',
    '|---|---|---|---|---|',
    ...spec.flags.map((f) => `| ${flagCell(f)} | ${valueCell(f)} | ${f.repeatable ? 'yes' : 'no'} | ${cell(f.default ?? '—')} | ${cell(f.description)} |`),
  ]
}

function exitTable(spec: CommandSpec): string[] {
  return ['| exit status | meaning |', '|---|---|', ...spec.exits.map((e) => `| ${code(`${e.code}`)} | ${cell(e.meaning)} |`)]
}

/** The generated block of one subcommand, markers excluded. */
export function commandBlock(spec: CommandSpec): string {
  return ['```', ...wrap(synopsis(spec), 96, '    ', ''), '```', '', ...flagTable(spec), '', ...exitTable(spec)].join('\n')
}

/** `doc` with every subcommand's generated block rewritten; an error names a block whose markers are missing. */
export function renderCliDocs(doc: string): string {
  let out = doc
  for (const spec of COMMANDS) {
    const { begin, end } = markers(spec)
    const from = out.indexOf(begin)
    const to = out.indexOf(end, from)
    if (from < 0 || to < 0) throw new Error(`docs/cli.md: no generated block for cordon ${spec.name} (expected the lines ${begin} … ${end})`)
    out = `${out.slice(0, from + begin.length)}\n${commandBlock(spec)}\n${out.slice(to)}`
  }
  return out
}
