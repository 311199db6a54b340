/**
 * Parser for profiles/linux/seccomp.rules: the syscall list is data, with a
 * reason on each line. Parsed once per process; a malformed line is a
 * PolicyError naming file:line (fail closed: no partial filter).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { constants } from 'node:os'
import { PolicyError } from '../../../errors.js'
import { packageRoot } from '../../../native/load.js'

export interface SeccompArg {
  arg: number
  op: 'eq' | 'ne' | 'masked_eq' | 'gt' | 'lt'
  value: string
  mask?: string
}
export interface SeccompRule {
  syscall: string
  /** notify: answered by the launcher's supervisor; such rules make the separate metadata filter (Landlock mode). */
  action: 'errno' | 'kill' | 'notify'
  errno?: number
  args: SeccompArg[]
  /** `net-off`: only with the network off; `unix-off`: whenever host unix sockets are off (network `off`, `inet`, `proxy`); `net-proxy`: only through the proxy (TCP only). */
  when: 'always' | 'net-off' | 'unix-off' | 'net-proxy'
  reason: string
}

const ARG_RE = /^a([0-5])(?:&(0x[0-9a-f]+|\d+))?(==|!=|>|<)(0x[0-9a-f]+|\d+)$/i
const OPS = { '==': 'eq', '!=': 'ne', '>': 'gt', '<': 'lt' } as const

function hex(n: string): string {
  return '0x' + BigInt(n).toString(16)
}

function parseArg(tok: string, where: string): SeccompArg {
  const m = ARG_RE.exec(tok.replace(/\s+/g, ''))
  if (!m) throw new PolicyError(`bad argument test '${tok}' (expected aN OP VALUE or aN &MASK==VALUE)`, { where })
  const [, idx, mask, op, value] = m
  if (mask !== undefined) {
    if (op !== '==') throw new PolicyError(`a masked test must use == ('${tok}')`, { where })
    return { arg: Number(idx), op: 'masked_eq', mask: hex(mask), value: hex(value!) }
  }
  return { arg: Number(idx), op: OPS[op as keyof typeof OPS], value: hex(value!) }
}

function parseAction(tok: string, where: string): Pick<SeccompRule, 'action' | 'errno'> {
  if (tok === 'kill') return { action: 'kill' }
  if (tok === 'notify') return { action: 'notify' }
  const name = tok.startsWith('errno:') ? tok.slice(6) : ''
  const errno = (constants.errno as Record<string, number>)[name]
  if (errno === undefined) throw new PolicyError(`unknown action '${tok}' (errno:NAME, kill or notify)`, { where })
  return { action: 'errno', errno }
}

export function parseSeccompRules(text: string, file: string): SeccompRule[] {
  const rules: SeccompRule[] = []
  text.split('\n').forEach((line, i) => {
    const where = `${file}:${i + 1}`
    const hash = line.indexOf('#')
    const body = (hash >= 0 ? line.slice(0, hash) : line).trim()
    if (!body) return
    const reason = hash >= 0 ? line.slice(hash + 1).trim() : ''
    if (!reason) throw new PolicyError('every seccomp rule needs a reason after #', { where })
    // Masked tests may be written "a0 &0x8==0x8": re-join "aN" with a following "&…" token.
    const toks = body.replace(/(a[0-5])\s+(&)/gi, '$1$2').split(/\s+/)
    const [syscall, action, ...rest] = toks
    if (!syscall || !/^[a-z0-9_]+$/.test(syscall) || !action) throw new PolicyError(`bad rule '${body}'`, { where })
    let when: SeccompRule['when'] = 'always'
    const args: SeccompArg[] = []
    for (const tok of rest) {
      if (tok === 'when=net-off') when = 'net-off'
      else if (tok === 'when=unix-off') when = 'unix-off'
      else if (tok === 'when=net-proxy') when = 'net-proxy'
      else args.push(parseArg(tok, where))
    }
    if (args.length > 3) throw new PolicyError('at most 3 argument tests per rule', { where })
    // The supervisor answers what reaches it the same way in every network
    // mode (performed beneath a write root, EPERM elsewhere): when= has
    // nothing to do with it. Argument tests pick which calls reach it — the
    // two attribute ioctls, not every ioctl a terminal or a build makes.
    // A notify rule is always in the supervisor's filter, or only with an allowlist (connect: notify-connect.c).
    if (action === 'notify' && when !== 'always' && when !== 'net-proxy') throw new PolicyError('a notify rule takes no when= other than when=net-proxy', { where })
    rules.push({ syscall, ...parseAction(action, where), args, when, reason })
  })
  return rules
}

/**
 * The build's parse of the rules file (scripts/bundle-cli.mjs): the rules
 * together with the exact text they were parsed from. Parsing the file is
 * ~3–5 ms of cold code at every CLI start; JSON.parse of this is ~0.3 ms.
 */
export const PARSED_RULES_FILE = join('dist', 'seccomp-rules.json')
/** Bumped with any change to what parseSeccompRules returns: a build output of another parser is parsed again. */
export const RULES_PARSER = 4

/**
 * The rules of `text`: the build's parse (`built`, the contents of
 * PARSED_RULES_FILE) when it was made from exactly this text, else a parse
 * of the text — the rules file stays the source of truth, and an edited,
 * missing or malformed build output is never used.
 */
export function rulesFrom(text: string, file: string, built: string | undefined): SeccompRule[] {
  try {
    const parsed = built === undefined ? undefined : (JSON.parse(built) as { parser?: unknown; source?: unknown; rules?: unknown })
    if (parsed?.parser === RULES_PARSER && parsed.source === text && Array.isArray(parsed.rules)) return parsed.rules as SeccompRule[]
  } catch {
    /* malformed: parse the text */
  }
  return parseSeccompRules(text, file)
}

function readOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}

let cache: SeccompRule[] | undefined
export function loadSeccompRules(): SeccompRule[] {
  if (!cache) {
    const file = join(packageRoot, 'profiles', 'linux', 'seccomp.rules')
    cache = rulesFrom(readFileSync(file, 'utf8'), file, readOrUndefined(join(packageRoot, PARSED_RULES_FILE)))
  }
  return cache
}
