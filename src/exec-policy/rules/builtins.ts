/**
 * The three functions a rules file may call, with Codex's parameter order
 * (so positional arguments bind the same way) and its defaults:
 *
 *   prefix_rule(pattern, decision="allow", match=[], not_match=[], justification=None)
 *   network_rule(host, protocol, decision, justification=None)
 *   host_executable(name, paths)
 *
 * Every type or value problem is a PolicyError at the offending argument.
 */
import { homedir } from 'node:os'
import { posix } from 'node:path'
import type { Pos } from './ast.js'
import type { Builtin } from './evaluator.js'
import { normalizeHost, parseNetworkDecision, parseProtocol } from './network-rule.js'
import type { Example, PolicyBuilder } from './policy-builder.js'
import { shlexSplit } from './shlex.js'
import { isDecision, type Decision, type PrefixRule } from '../types.js'
import { typeName, type TypeCheck, type Value } from './values.js'

export function makeBuiltins(builder: PolicyBuilder): Map<string, Builtin> {
  return new Map<string, Builtin>([
    ['prefix_rule', { params: params('pattern!', 'decision', 'match', 'not_match', 'justification'), call: (a, pos, c) => prefixRule(builder, a, pos, c) }],
    ['network_rule', { params: params('host!', 'protocol!', 'decision!', 'justification'), call: (a, pos, c) => networkRule(builder, a, pos, c) }],
    ['host_executable', { params: params('name!', 'paths!'), call: (a, _pos, c) => hostExecutable(builder, a, c) }],
  ])
}

function params(...names: string[]): { name: string; required: boolean }[] {
  return names.map((n) => ({ name: n.replace('!', ''), required: n.endsWith('!') }))
}

type Args = ReadonlyMap<string, Value>

function prefixRule(builder: PolicyBuilder, args: Args, pos: Pos, c: TypeCheck): void {
  const decisionValue = args.get('decision')
  const decision = decisionValue === undefined || decisionValue.t === 'none' ? 'allow' : ruleDecision(decisionValue, c)
  const justification = justificationOf(args, c)
  const [first, ...rest] = patternOf(args.get('pattern') as Value, c)
  const location = { file: c.file, line: pos.line, column: pos.column }
  const rules: PrefixRule[] = (first as string[]).map((program) => ({ program, rest, decision, justification, location }))
  builder.addPrefixRules(rules, examplesOf(args.get('match'), 'match', c), examplesOf(args.get('not_match'), 'not_match', c))
}

function ruleDecision(v: Value, c: TypeCheck): Decision {
  const raw = c.string(v, 'decision')
  if (!isDecision(raw)) throw c.fail(v.pos, `decision must be "allow", "prompt" or "forbidden", got ${JSON.stringify(raw)}`)
  return raw
}

function justificationOf(args: Args, c: TypeCheck): string | undefined {
  const v = args.get('justification')
  const text = c.optionalString(v, 'justification')
  if (text !== undefined && text.trim() === '') throw c.fail((v as Value).pos, 'justification cannot be empty')
  return text
}

/** Each pattern position is a string or a non-empty list of alternative strings. */
function patternOf(v: Value, c: TypeCheck): string[][] {
  const items = c.list(v, 'pattern')
  if (items.length === 0) throw c.fail(v.pos, 'pattern cannot be empty')
  return items.map((item) => {
    if (item.t === 'str') return [item.v]
    if (item.t !== 'list') throw c.fail(item.pos, `pattern element must be a string or a list of strings, got ${typeName(item)}`)
    if (item.items.length === 0) throw c.fail(item.pos, 'pattern alternatives cannot be empty')
    return [...new Set(item.items.map((alt) => c.string(alt, 'pattern alternative')))]
  })
}

/** Examples are strings (split like a shell would, without expansions) or token lists. */
function examplesOf(v: Value | undefined, what: string, c: TypeCheck): Example[] {
  if (v === undefined || v.t === 'none') return []
  return c.list(v, what).map((item) => {
    if (item.t === 'list') return { argv: c.strings(item, `${what} example`), pos: item.pos }
    const text = c.string(item, `${what} example`)
    const argv = shlexSplit(text)
    if (argv === undefined) throw c.fail(item.pos, `${what} example has unterminated quoting`)
    if (argv.length === 0) throw c.fail(item.pos, `${what} example cannot be empty`)
    return { argv, pos: item.pos }
  })
}

function networkRule(builder: PolicyBuilder, args: Args, pos: Pos, c: TypeCheck): void {
  const hostValue = args.get('host') as Value
  const host = normalizeHost(c.string(hostValue, 'host'))
  if ('error' in host) throw c.fail(hostValue.pos, host.error)
  const protocolValue = args.get('protocol') as Value
  const protocol = parseProtocol(c.string(protocolValue, 'protocol'))
  if (!protocol) throw c.fail(protocolValue.pos, 'protocol must be one of "http", "https", "socks5_tcp", "socks5_udp"')
  const decisionValue = args.get('decision') as Value
  const decision = parseNetworkDecision(c.string(decisionValue, 'decision'))
  if (!decision) throw c.fail(decisionValue.pos, 'decision must be "allow", "prompt", "forbidden" or "deny"')
  const location = { file: c.file, line: pos.line, column: pos.column }
  builder.addNetworkRule({ host: host.host, protocol, decision, justification: justificationOf(args, c), location })
}

function hostExecutable(builder: PolicyBuilder, args: Args, c: TypeCheck): void {
  const nameValue = args.get('name') as Value
  const name = c.string(nameValue, 'name')
  if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0')) {
    throw c.fail(nameValue.pos, `host_executable name must be a bare program name, got ${JSON.stringify(name)}`)
  }
  const paths: string[] = []
  for (const item of c.list(args.get('paths') as Value, 'paths')) {
    const path = absolutePath(c.string(item, 'paths element'))
    if (path === undefined) throw c.fail(item.pos, `host_executable paths must be absolute or start with ~/, got ${JSON.stringify(item.t === 'str' ? item.v : '')}`)
    if (posix.basename(path) !== name) throw c.fail(item.pos, `host_executable path ${JSON.stringify(path)} must have basename ${JSON.stringify(name)}`)
    if (!paths.includes(path)) paths.push(path)
  }
  builder.setHostExecutable(name, paths)
}

function absolutePath(raw: string): string | undefined {
  if (raw.includes('\0')) return undefined
  if (raw.startsWith('~/')) return posix.normalize(posix.join(homedir(), raw.slice(2)))
  return raw.startsWith('/') ? posix.normalize(raw) : undefined
}
