/**
 * The CLI's argv parser, driven by the flag tables in flags.ts: a flag the
 * table does not name, a value outside its choices, a value missing, empty or
 * given twice is a usage error.
 */
import { PolicyError } from '../errors.js'
import type { CommandSpec, Flag } from './flags.js'

/** A mistake on the command line: every subcommand exits 64 for it (flags.ts, EXIT) and runs nothing. */
export class UsageError extends PolicyError {
  constructor(message: string) {
    super(message, { where: 'command line' })
    // A literal, not the class's name: the CLI bundles are minified.
    this.name = 'UsageError'
  }
}

export interface Parsed {
  /** The values of the flags that take one, by long name, in command-line order. */
  readonly values: Record<string, string[]>
  /** The switches given (flags without a value), by long name. */
  readonly switches: Set<string>
  /** What follows the options: the command to run or decide on. */
  readonly command: string[]
  /**
   * The first usage error, if any. Parsing goes on past it, so that a later
   * `--help` or `--json` still counts (`cordon run --frobnicate --json`).
   */
  readonly error?: string
}

/** The flags of a spec by every name they answer to. */
function byName(spec: CommandSpec): Map<string, Flag> {
  const map = new Map<string, Flag>()
  for (const f of spec.flags) {
    map.set(f.name, f)
    if (f.short) map.set(f.short, f)
  }
  return map
}

/** `--name=value` → ['--name', 'value']; anything else → [arg, undefined]. */
function splitInline(arg: string): [string, string | undefined] {
  const eq = arg.indexOf('=')
  return arg.startsWith('--') && eq > 2 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined]
}

/** Why `value` is not acceptable for `flag` next to the values already given, or undefined. */
function refuse(flag: Flag, value: string, given: readonly string[] | undefined): string | undefined {
  if (value === '') return `${flag.name} needs a non-empty value (${flag.value})`
  if (flag.choices && !flag.choices.includes(value)) return `${flag.name} must be one of ${flag.choices.join(', ')} (got '${value}')`
  if (given?.length && !flag.repeatable) return `${flag.name} given twice`
  return undefined
}

/** What is wrong with the operands and required flags once the options are read, or undefined. */
function checkShape(spec: CommandSpec, p: Omit<Parsed, 'error'>, dashDash: boolean): string | undefined {
  if (spec.operands === 'none' && (p.command.length || dashDash)) return `unexpected argument${p.command.length ? ` '${p.command[0]}'` : ' --'}: cordon ${spec.name} takes no command`
  if (spec.operands === 'command-after-dashdash' && !dashDash) return 'missing -- before the command'
  if (spec.operands !== 'none' && p.command.length === 0) return 'no command given'
  const missing = spec.flags.find((f) => f.required && !(p.values[f.name]?.length || p.switches.has(f.name)))
  return missing ? `${missing.name}${missing.value ? ` ${missing.value}` : ''} is required` : undefined
}

export function parseArgs(argv: readonly string[], spec: CommandSpec): Parsed {
  const flags = byName(spec)
  const values: Record<string, string[]> = {}
  const switches = new Set<string>()
  let command: string[] = []
  let error: string | undefined
  let dashDash = false
  /** A variadic flag whose list the following plain words extend. */
  let extending: Flag | undefined
  const add = (flag: Flag, value: string): void => {
    const why = refuse(flag, value, values[flag.name])
    if (why) error ??= why
    else (values[flag.name] ??= []).push(value)
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--') {
      dashDash = true
      command = argv.slice(i + 1)
      break
    }
    if (!arg.startsWith('-') || arg === '-') {
      if (extending) add(extending, arg)
      else if (spec.operands === 'command') {
        command = argv.slice(i)
        break
      } else error ??= `unexpected argument '${arg}'`
      continue
    }
    extending = undefined
    const [name, inline] = splitInline(arg)
    const flag = flags.get(name)
    if (!flag) error ??= `unknown option ${name}`
    else if (!flag.value) {
      if (inline === undefined) switches.add(flag.name)
      else error ??= `${flag.name} takes no value`
    } else {
      const value = inline ?? argv[++i]
      if (value === undefined) error ??= `${flag.name} needs a value (${flag.value})`
      else add(flag, value)
      if (flag.variadic && inline === undefined) extending = flag
    }
  }
  error ??= checkShape(spec, { values, switches, command }, dashDash)
  return { values, switches, command, ...(error === undefined ? {} : { error }) }
}

/** The value of a flag that is given at most once. */
export function one(p: Parsed, name: string): string | undefined {
  return p.values[name]?.[0]
}
