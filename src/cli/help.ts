/** `cordon <command> --help`, written from the tables in flags.ts (the overview, `cordon help`, is in main.ts). */
import type { CommandSpec, Flag } from './flags.js'
import type { Io } from './io.js'

/** `-h, --help` or `--read PATH`. */
export function flagLabel(f: Flag): string {
  return `${f.short ? `${f.short}, ` : ''}${f.name}${f.value ? ` ${f.value}` : ''}`
}

/** How a flag appears in a synopsis: `[--read PATH]...`, `--rules FILE...`. */
function synopsisItem(f: Flag): string {
  const item = `${f.short ? `${f.short}|` : ''}${f.name}${f.value ? ` ${f.value}` : ''}`
  return `${f.required ? item : `[${item}]`}${f.repeatable ? '...' : ''}`
}

function operandsOf(spec: CommandSpec): string {
  return spec.operands === 'none' ? '' : spec.operands === 'command' ? ' [--] CMD ARGS...' : ' -- CMD ARGS...'
}

/** `cordon run [options] [--] CMD ARGS...` */
export function usageLine(spec: CommandSpec): string {
  const required = spec.flags.filter((f) => f.required).map(synopsisItem)
  return `cordon ${spec.name}${required.map((r) => ` ${r}`).join('')} [options]${operandsOf(spec)}`
}

/** Every flag in one synopsis: `cordon check --rules FILE... [--json] [-h|--help] -- CMD ARGS...` */
export function synopsis(spec: CommandSpec): string {
  return `cordon ${spec.name} ${spec.flags.map(synopsisItem).join(' ')}${operandsOf(spec)}`
}

/** Words of `text` in lines of at most `width` columns: the first after `first`, the rest after `indent`. */
export function wrap(text: string, width: number, indent: string, first = indent): string[] {
  const lines: string[] = []
  let line = first
  let empty = true
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (!empty && line.length + 1 + word.length > width) {
      lines.push(line)
      line = indent
      empty = true
    }
    line += (empty ? '' : ' ') + word
    empty = false
  }
  if (!empty) lines.push(line)
  return lines
}

/** Markdown code spans read as plain text in a terminal. */
export const plain = (s: string): string => s.replaceAll('`', '')

/** A two-column list: the label, then its text wrapped beside it. */
function columns(rows: readonly (readonly [string, string])[]): string[] {
  const pad = Math.min(26, Math.max(...rows.map(([label]) => label.length)) + 4)
  const indent = ' '.repeat(pad)
  return rows.flatMap(([label, text]) =>
    label.length + 4 <= pad ? wrap(plain(text), 100, indent, `  ${label}`.padEnd(pad)) : [`  ${label}`, ...wrap(plain(text), 100, indent)],
  )
}

function describe(f: Flag): string {
  return `${f.description}${f.repeatable ? ' Repeatable.' : ''}${f.default ? ` Default: ${f.default}.` : ''}`
}

export function helpText(spec: CommandSpec): string {
  return [
    `usage: ${usageLine(spec)}`,
    '',
    ...wrap(plain(spec.summary), 100, ''),
    '',
    'options:',
    ...columns(spec.flags.map((f) => [flagLabel(f), describe(f)])),
    '',
    'exit status:',
    ...columns(spec.exits.map((e) => [`${e.code}`, e.meaning])),
    '',
    'More: docs/cli.md',
    '',
  ].join('\n')
}

/** The help of one subcommand as data (`--help --json`). */
export function helpJson(spec: CommandSpec): Record<string, unknown> {
  return { command: spec.name, usage: usageLine(spec), summary: spec.summary, flags: spec.flags, exits: spec.exits }
}

/** Print a subcommand's help (`cordon <command> --help`); exit status 0. */
export function printHelp(spec: CommandSpec, json: boolean, io: Io): number {
  io.stdout(json ? `${JSON.stringify(helpJson(spec), null, 2)}\n` : helpText(spec))
  return 0
}
