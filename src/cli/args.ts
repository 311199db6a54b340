/** A small, strict argv parser for the cordon CLI: unknown flags are errors. */
import { PolicyError } from '../errors.js'

export interface FlagSpec {
  /** Flags that take a value; `multi` ones may repeat. */
  values: Record<string, { multi?: boolean }>
  booleans: string[]
}

export interface Parsed {
  values: Record<string, string[]>
  booleans: Set<string>
  /** Everything after `--`. */
  rest: string[]
}

export function parseArgs(argv: readonly string[], spec: FlagSpec): Parsed {
  const out: Parsed = { values: {}, booleans: new Set(), rest: [] }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--') {
      out.rest = argv.slice(i + 1)
      break
    }
    const [name, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined]
    if (spec.booleans.includes(name)) {
      out.booleans.add(name)
      continue
    }
    const v = spec.values[name]
    if (!v) {
      if (!arg.startsWith('-')) {
        out.rest = argv.slice(i)
        break
      }
      throw new PolicyError(`unknown option ${name}`, { where: 'command line' })
    }
    const value = inline ?? argv[++i]
    if (value === undefined) throw new PolicyError(`${name} needs a value`, { where: 'command line' })
    const list = (out.values[name] ??= [])
    if (list.length && !v.multi) throw new PolicyError(`${name} given twice`, { where: 'command line' })
    list.push(value)
  }
  return out
}

export function one(p: Parsed, name: string): string | undefined {
  return p.values[name]?.[0]
}

export function oneOf<T extends string>(p: Parsed, name: string, allowed: readonly T[]): T | undefined {
  const v = one(p, name)
  if (v !== undefined && !allowed.includes(v as T)) throw new PolicyError(`${name} must be one of ${allowed.join(', ')} (got '${v}')`, { where: 'command line' })
  return v as T | undefined
}
