/**
 * Policy amendments: "always allow this" appends a `prefix_rule` (or a
 * `network_rule`) to a rules file, so the next decision — in this process
 * or any other reading the file — sees it.
 *
 * Several processes may amend the same file at once, so the whole
 * read-check-append runs under a lock (proper-lockfile: an atomic mkdir
 * lock beside the file, with stale-lock recovery; it works across
 * processes and on network filesystems where flock does not). Under the
 * lock the file is parsed first: a rule already present is not added twice,
 * and a file that does not parse is never appended to (fail closed: the
 * amendment is an error naming file:line:col).
 */
import { mkdirSync, openSync, closeSync, readFileSync, appendFileSync, fsyncSync } from 'node:fs'
import { dirname } from 'node:path'
import lockfile from 'proper-lockfile'
import { PolicyError } from '../../errors.js'
import { parsePolicy, normalizeHost, type NetworkProtocol, type Policy } from '../../exec-policy/index.js'

export interface AmendResult {
  /** False when an identical rule was already in the file. */
  readonly added: boolean
  readonly file: string
  readonly rule: string
}

const LOCK_OPTIONS = { stale: 10_000, retries: { retries: 200, factor: 1.3, minTimeout: 5, maxTimeout: 100, randomize: true } }

/** Append `prefix_rule(pattern=[…], decision="allow")` unless an identical allow rule exists. */
export function appendPrefixRule(file: string, pattern: readonly string[]): Promise<AmendResult> {
  if (pattern.length === 0 || pattern.some((t) => t === '' || t.includes('\0'))) {
    return Promise.reject(new PolicyError('an amendment pattern needs non-empty tokens without NUL bytes', { where: 'amendment' }))
  }
  const rule = prefixRuleText(pattern)
  return underLock(file, rule, (policy) => hasPrefixRule(policy, pattern))
}

/** Append `network_rule(host=…, protocol=…, decision=…)` unless the same rule exists. */
export function appendNetworkRule(file: string, host: string, protocol: NetworkProtocol, decision: 'allow' | 'forbidden'): Promise<AmendResult> {
  const h = normalizeHost(host)
  if ('error' in h) return Promise.reject(new PolicyError(h.error, { where: 'network amendment' }))
  const rule = `network_rule(host=${starlarkString(h.host)}, protocol=${starlarkString(protocol)}, decision=${starlarkString(decision)})`
  return underLock(file, rule, (policy) => policy.networkRules.some((r) => r.host === h.host && r.protocol === protocol && r.decision === decision))
}

/** The allow rule for `pattern`, as appendPrefixRule writes it. */
export function prefixRuleText(pattern: readonly string[]): string {
  return `prefix_rule(pattern=[${pattern.map(starlarkString).join(', ')}], decision="allow")`
}

async function underLock(file: string, rule: string, present: (policy: Policy) => boolean): Promise<AmendResult> {
  mkdirSync(dirname(file), { recursive: true })
  closeSync(openSync(file, 'a')) // create if missing; never truncates
  const release = await lockfile.lock(file, LOCK_OPTIONS)
  try {
    const text = readFileSync(file, 'utf8')
    if (present(parsePolicy(text, file))) return { added: false, file, rule }
    const sep = text.length > 0 && !text.endsWith('\n') ? '\n' : ''
    const fd = openSync(file, 'a')
    try {
      appendFileSync(fd, `${sep}${rule}\n`)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    return { added: true, file, rule }
  } finally {
    await release()
  }
}

/** An allow rule whose pattern is exactly these tokens (single alternatives). */
function hasPrefixRule(policy: Policy, pattern: readonly string[]): boolean {
  const rules = policy.rulesByProgram.get(pattern[0] as string) ?? []
  return rules.some(
    (r) => r.decision === 'allow' && r.rest.length === pattern.length - 1 && r.rest.every((alts, i) => alts.length === 1 && alts[0] === pattern[i + 1]),
  )
}

/** A double-quoted Starlark string: backslash, quote and control characters escaped. */
export function starlarkString(s: string): string {
  let out = '"'
  for (const ch of s) {
    const code = ch.codePointAt(0) as number
    if (ch === '\\' || ch === '"') out += `\\${ch}`
    else if (ch === '\n') out += '\\n'
    else if (ch === '\t') out += '\\t'
    else if (ch === '\r') out += '\\r'
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`
    else out += ch
  }
  return `${out}"`
}
