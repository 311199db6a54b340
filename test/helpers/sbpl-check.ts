/**
 * A well-formedness checker for the Seatbelt profiles (SBPL) cordon
 * generates. No macOS profile compiler exists on Linux, so the test suite
 * checks what the compiler would refuse or what would silently mean
 * something else:
 *
 * - balanced forms, terminated strings, only the escapes `\\ \" \n \t`;
 * - `(version 1)` first; top-level forms are `allow`/`deny` rules only;
 * - only known operations and filters (lists below, with their sources);
 * - a string is at most MAX_SBPL_STRING bytes (the compiler rejects string
 *   literals over about 1 KB);
 * - regexes in the subset Seatbelt's compiler takes (POSIX extended:
 *   anchors, `.`, bracket classes, `* + ?`, groups with `|`; no `{n}`
 *   counts, no `\d`-style classes, no back-references or `(?…)`);
 * - `ip` addresses are `*` or `localhost` with a port `*` or 1–65535 (the
 *   compiler refuses any other host: "host must be * or localhost").
 *
 * Sources of the operation and filter names: Apple's own profiles
 * (/System/Library/Sandbox/Profiles/*.sb, /usr/share/sandbox/*.sb), the
 * "Apple Sandbox Guide v1.0" (reverse.put.as, 2011), Chromium's
 * sandbox/policy/mac/*.sb and OpenAI Codex's seatbelt_base_policy.sbpl. A
 * name used by none of them is refused: it is either a typo (which the
 * real compiler refuses) or an allowance nobody has reviewed.
 */
import { MAX_SBPL_STRING } from '../../src/platform/darwin/sbpl-string.js'

export const KNOWN_OPERATIONS = new Set([
  'default',
  'file*', 'file-read*', 'file-read-data', 'file-read-metadata', 'file-read-xattr',
  'file-write*', 'file-write-data', 'file-write-create', 'file-write-unlink', 'file-write-mode', 'file-write-owner',
  'file-write-times', 'file-write-xattr', 'file-write-flags', 'file-write-setugid', 'file-ioctl', 'file-link',
  'file-clone', 'file-revoke', 'file-chroot', 'file-map-executable', 'file-mknod', 'file-search',
  'file-issue-extension', 'file-mount', 'file-unmount',
  'process*', 'process-exec', 'process-exec*', 'process-exec-interpreter', 'process-fork', 'process-info*',
  'process-info-pidinfo', 'process-info-listpids', 'process-info-setcontrol', 'process-info-rusage',
  'process-info-codesignature', 'process-info-dirtycontrol', 'process-info-pidfdinfo',
  'signal', 'sysctl*', 'sysctl-read', 'sysctl-write',
  'mach*', 'mach-host*', 'mach-lookup', 'mach-register', 'mach-bootstrap', 'mach-priv-host-port', 'mach-priv-task-port', 'mach-task-name',
  'network*', 'network-inbound', 'network-outbound', 'network-bind',
  'ipc*', 'ipc-posix*', 'ipc-posix-sem', 'ipc-posix-shm', 'ipc-posix-shm-read-data', 'ipc-posix-shm-write-data', 'ipc-sysv*',
  'iokit*', 'iokit-open', 'iokit-get-properties', 'iokit-set-properties',
  'user-preference*', 'user-preference-read', 'user-preference-write',
  'pseudo-tty', 'system*', 'system-socket', 'system-fsctl', 'system-info', 'system-sched', 'system-audit',
  'job-creation', 'lsopen', 'nvram*', 'distributed-notification-post', 'appleevent-send',
])

/** Filters and the number of string arguments each takes (`null`: takes nested filters). */
const STRING_FILTERS = new Set(['literal', 'path', 'subpath', 'prefix', 'regex', 'extension', 'global-name', 'local-name', 'sysctl-name', 'sysctl-name-prefix', 'ipc-posix-name', 'preference-domain', 'iokit-user-client-class', 'iokit-registry-entry-class'])
const COMBINATORS = new Set(['require-all', 'require-any', 'require-not'])
const TARGETS = new Set(['self', 'same-sandbox', 'children', 'pgrp', 'others'])
const MODIFIERS = new Set(['message', 'report', 'no-log', 'send-signal'])
const VNODE_TYPES = new Set(['REGULAR-FILE', 'DIRECTORY', 'SYMLINK', 'CHARACTER-DEVICE', 'BLOCK-DEVICE', 'SOCKET', 'FIFO'])
export const KNOWN_FILTERS = new Set([...STRING_FILTERS, ...COMBINATORS, 'target', 'remote', 'local', 'with', 'vnode-type'])

type Node = { kind: 'list'; items: Node[]; at: number } | { kind: 'string'; value: string; raw: string; at: number } | { kind: 'atom'; value: string; at: number }

export class SbplError extends Error {}

const ESCAPES = new Set(['\\', '"', 'n', 't'])

function readString(text: string, start: number): [Node, number] {
  let i = start + 1
  let value = ''
  while (i < text.length && text[i] !== '"') {
    if (text[i] === '\\') {
      const e = text[i + 1]
      if (e === undefined || !ESCAPES.has(e)) throw new SbplError(`bad string escape \\${e ?? ''} at ${i}`)
      value += e === 'n' ? '\n' : e === 't' ? '\t' : e
      i += 2
    } else value += text[i++]
  }
  if (i >= text.length) throw new SbplError(`unterminated string at ${start}`)
  return [{ kind: 'string', value, raw: text.slice(start + 1, i), at: start }, i + 1]
}

/** Parse SBPL text into its top-level forms. */
export function parseSbpl(text: string): Node[] {
  const stack: Node[][] = [[]]
  const opened: number[] = []
  for (let i = 0; i < text.length; ) {
    const c = text[i]!
    if (c === ';') i = text.indexOf('\n', i) < 0 ? text.length : text.indexOf('\n', i)
    else if (/\s/.test(c)) i++
    else if (c === '(') {
      stack.push([])
      opened.push(i++)
    } else if (c === ')') {
      if (stack.length === 1) throw new SbplError(`unbalanced ')' at ${i}`)
      const items = stack.pop()!
      stack.at(-1)!.push({ kind: 'list', items, at: opened.pop()! })
      i++
    } else if (c === '#' && text[i + 1] === '"') {
      // A raw string: no escapes (Apple's and Chromium's profiles write regexes this way).
      const end = text.indexOf('"', i + 2)
      if (end < 0) throw new SbplError(`unterminated string at ${i}`)
      stack.at(-1)!.push({ kind: 'string', value: text.slice(i + 2, end), raw: text.slice(i + 2, end), at: i })
      i = end + 1
    } else if (c === '"') {
      const [node, next] = readString(text, i)
      stack.at(-1)!.push(node)
      i = next
    } else {
      const m = /^[^\s()";]+/.exec(text.slice(i))!
      stack.at(-1)!.push({ kind: 'atom', value: m[0], at: i })
      i += m[0].length
    }
  }
  if (stack.length !== 1) throw new SbplError(`unbalanced '(' at ${opened.at(-1)}`)
  return stack[0]!
}

/** Throw unless `re` is in the regex subset Seatbelt's compiler takes. */
export function checkRegex(re: string): void {
  if (/\{/.test(re.replace(/\\\{/g, '').replace(/\[[^\]]*\]/g, ''))) throw new SbplError(`regex uses a {n} count or an unescaped brace: ${re}`)
  if (/\(\?/.test(re)) throw new SbplError(`regex uses (?…) syntax: ${re}`)
  if (/\\[0-9dDwWsSbB]/.test(re)) throw new SbplError(`regex uses a Perl class or a back-reference: ${re}`)
  if (/\(\)|\(\||\|\)|\|\|/.test(re)) throw new SbplError(`regex has an empty alternative: ${re}`)
  if (/(^|[^\\])[*+?][*+?]/.test(re.replace(/\[[^\]]*\]/g, 'x'))) throw new SbplError(`regex stacks quantifiers: ${re}`)
  try {
    new RegExp(re)
  } catch (e) {
    throw new SbplError(`regex does not parse: ${re}: ${(e as Error).message}`)
  }
}

function checkString(n: Node): string {
  if (n.kind !== 'string') throw new SbplError(`expected a string at ${n.at}`)
  if (Buffer.byteLength(n.raw) > MAX_SBPL_STRING) throw new SbplError(`string of ${Buffer.byteLength(n.raw)} bytes at ${n.at}: over ${MAX_SBPL_STRING}`)
  return n.value
}

function checkAddress(items: Node[], at: number): void {
  const [family, addr] = items
  if (family?.kind === 'atom' && family.value === 'ip' && items.length === 2) {
    const m = /^(\*|localhost):(\*|\d+)$/.exec(checkString(addr!))
    if (!m || (m[2] !== '*' && (Number(m[2]) < 1 || Number(m[2]) > 65535))) throw new SbplError(`ip address must be * or localhost with a port * or 1-65535 at ${at}`)
    return
  }
  throw new SbplError(`unknown address form at ${at}`)
}

function checkFilter(n: Node): void {
  if (n.kind !== 'list' || n.items[0]?.kind !== 'atom') throw new SbplError(`expected a filter at ${n.at}`)
  const [head, ...args] = n.items as [Node & { kind: 'atom' }, ...Node[]]
  const name = head.value
  if (STRING_FILTERS.has(name)) {
    if (args.length !== 1) throw new SbplError(`(${name}) takes one string at ${n.at}`)
    const s = checkString(args[0]!)
    if (name === 'regex') checkRegex(s)
    else if (['literal', 'path', 'subpath', 'prefix'].includes(name) && !s.startsWith('/')) throw new SbplError(`(${name}) path is not absolute at ${n.at}`)
  } else if (COMBINATORS.has(name)) {
    if (!args.length || (name === 'require-not' && args.length !== 1)) throw new SbplError(`(${name}) arity at ${n.at}`)
    args.forEach(checkFilter)
  } else if (name === 'target') {
    if (args.length !== 1 || args[0]!.kind !== 'atom' || !TARGETS.has(args[0]!.value)) throw new SbplError(`unknown target at ${n.at}`)
  } else if (name === 'vnode-type') {
    if (args.length !== 1 || args[0]!.kind !== 'atom' || !VNODE_TYPES.has(args[0]!.value)) throw new SbplError(`unknown vnode type at ${n.at}`)
  } else if (name === 'remote' || name === 'local') checkAddress(args, n.at)
  else if (name === 'with') {
    const [mod, ...rest] = args
    if (mod?.kind !== 'atom' || !MODIFIERS.has(mod.value)) throw new SbplError(`unknown modifier at ${n.at}`)
    if (mod.value === 'message') checkString(rest[0] ?? { kind: 'atom', value: '', at: n.at })
  } else throw new SbplError(`unknown filter (${name}) at ${n.at}`)
}

function checkRule(n: Node): void {
  if (n.kind !== 'list') throw new SbplError(`top-level ${n.kind} at ${n.at}`)
  const [head, ...rest] = n.items
  if (head?.kind !== 'atom' || (head.value !== 'allow' && head.value !== 'deny')) throw new SbplError(`unknown top-level form at ${n.at}`)
  const ops = rest.filter((x) => x.kind === 'atom')
  const filters = rest.filter((x) => x.kind !== 'atom')
  if (!ops.length) throw new SbplError(`rule without an operation at ${n.at}`)
  if (rest.findIndex((x) => x.kind !== 'atom') >= 0 && rest.slice(rest.findIndex((x) => x.kind !== 'atom')).some((x) => x.kind === 'atom')) throw new SbplError(`operation after a filter at ${n.at}`)
  for (const op of ops) if (!KNOWN_OPERATIONS.has((op as { value: string }).value)) throw new SbplError(`unknown operation ${(op as { value: string }).value} at ${op.at}`)
  filters.forEach(checkFilter)
}

/** Throw an SbplError for the first problem in a whole profile. */
export function checkProfile(text: string): void {
  const forms = parseSbpl(text)
  const first = forms[0]
  const isVersion = first?.kind === 'list' && first.items.length === 2 && first.items[0]?.kind === 'atom' && first.items[0].value === 'version' && first.items[1]?.kind === 'atom' && first.items[1].value === '1'
  if (!isVersion) throw new SbplError('the profile must start with (version 1)')
  forms.slice(1).forEach(checkRule)
}

/** Each rule's text alone (for checking a base-policy rule outside a profile). */
export function checkRuleText(text: string): void {
  const forms = parseSbpl(text)
  if (forms.length !== 1) throw new SbplError(`expected one form, found ${forms.length}`)
  checkRule(forms[0]!)
}

/** Whether rule operation `ruleOp` covers the concrete operation `op` (`file-read*` covers `file-read-data`). */
function covers(ruleOp: string, op: string): boolean {
  if (ruleOp === 'default') return true
  return ruleOp.endsWith('*') ? op.startsWith(ruleOp.slice(0, -1)) : ruleOp === op
}

function pathMatches(f: Node, path: string): boolean {
  if (f.kind !== 'list') return false
  const [head, arg] = f.items
  if (head?.kind !== 'atom' || arg?.kind !== 'string') return false
  if (head.value === 'literal') return path === arg.value
  if (head.value === 'subpath') return path === arg.value || path.startsWith(arg.value === '/' ? '/' : `${arg.value}/`)
  if (head.value === 'regex') return new RegExp(arg.value).test(path)
  return false
}

/**
 * What a profile decides for a file operation on a resolved path, the way
 * Seatbelt does: the last rule whose operation covers it and whose path
 * filters (any of them; none means all) match. Only path filters are
 * modelled: a rule with other filters (a target, an address) never matches
 * here, so use this for file operations only.
 */
export function decide(text: string, op: string, path: string): 'allow' | 'deny' {
  let verdict: 'allow' | 'deny' = 'deny'
  for (const form of parseSbpl(text).slice(1)) {
    if (form.kind !== 'list') continue
    const [head, ...rest] = form.items
    const ops = rest.filter((x): x is Node & { kind: 'atom' } => x.kind === 'atom').map((x) => x.value)
    const filters = rest.filter((x) => x.kind === 'list' && !(x.items[0]?.kind === 'atom' && x.items[0].value === 'with'))
    if (!ops.some((o) => covers(o, op))) continue
    if (filters.length && !filters.some((f) => pathMatches(f, path))) continue
    verdict = (head as { value: string }).value as 'allow' | 'deny'
  }
  return verdict
}
