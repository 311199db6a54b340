/**
 * The sandbox environment: built from the caller's environment by the
 * profile's env policy. By default everything passes except names that look
 * like secrets and loader-injection variables.
 */
import picomatch from 'picomatch'
import type { Profile } from './schema.js'

/** Names that look like credentials. Matched case-insensitively. */
export const SECRET_PATTERNS = [
  '*_TOKEN',
  '*_TOKEN_*',
  '*TOKEN',
  '*_SECRET*',
  '*SECRET',
  '*_KEY',
  '*_KEY_*',
  '*_APIKEY',
  '*API_KEY*',
  '*PASSWORD*',
  '*PASSWD*',
  '*WEBHOOK*',
  '*_CREDENTIALS*',
  '*_AUTH',
  'AWS_*',
  'AZURE_*',
  'GOOGLE_APPLICATION_CREDENTIALS',
  'GCLOUD_*',
  'SSH_AUTH_SOCK',
  'SSH_AGENT_PID',
  'GPG_AGENT_INFO',
  'GNUPGHOME',
  'KUBECONFIG',
  'DOCKER_AUTH_CONFIG',
  'NPM_CONFIG__AUTH*',
  'NODE_AUTH_TOKEN',
  'VAULT_*',
  'DATABASE_URL',
]

/** Always dropped: they make every dynamically linked program load attacker-chosen code. */
const LOADER_PATTERNS = ['LD_PRELOAD', 'LD_AUDIT', 'LD_LIBRARY_PATH', 'DYLD_*']

export interface EnvResult {
  env: Record<string, string>
  dropped: string[]
}

/** Pattern characters the star-only fast path understands: letters, digits, `_`, and single `*`s. */
const SIMPLE_PATTERN = /^(?:[A-Za-z0-9_]|\*(?!\*))+$/

/**
 * Names on which every simple pattern's picomatch regex reduces to a plain
 * star match: printable ASCII (so the `i` flag folds letters exactly like
 * toUpperCase), no `/` (`*` stops there; a trailing `\/?` can only match
 * nothing) and no `.` (a leading `*` never matches a leading dot). Other
 * names go to the regex itself.
 */
function plainName(name: string): boolean {
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i)
    if (c < 0x20 || c > 0x7e || c === 0x2e || c === 0x2f) return false
  }
  return name !== ''
}

/** `name` matches a pattern split at its `*`s (no empty middle parts: `**` is not simple). */
function starMatch(name: string, parts: readonly string[]): boolean {
  const first = parts[0]!
  if (parts.length === 1) return name === first
  const last = parts[parts.length - 1]!
  const end = name.length - last.length
  if (end < first.length || !name.startsWith(first) || !name.endsWith(last)) return false
  let at = first.length
  for (let i = 1; i < parts.length - 1; i++) {
    const found = name.indexOf(parts[i]!, at)
    if (found < 0 || found + parts[i]!.length > end) return false
    at = found + parts[i]!.length
  }
  return true
}

/**
 * A matcher for a fixed pattern list: picomatch's own regexes for the
 * patterns, alternated into one. Same answers as `picomatch(patterns)`
 * (which, without options like `format` or `matchBase`, is "the name equals
 * a pattern, or a pattern's regex matches"), but one regex test per name
 * instead of one picomatch call per pattern — filtering an environment
 * against the ~30 secret patterns that way costs milliseconds per run.
 *
 * When every pattern is letters, digits, `_` and single `*`s (the built-in
 * lists), names of printable ASCII without `/` or `.` — nearly every
 * environment variable — are matched by splitting at the `*`s, which is what
 * those regexes reduce to for such names; the regex is compiled (≈ 5 ms
 * for the secret list, at every CLI start) only when another name comes.
 */
export function anyPattern(patterns: readonly string[], options: { nocase?: boolean } = {}): (name: string) => boolean {
  const compile = () => {
    const res = patterns.map((p) => picomatch.makeRe(p, options))
    const flags = new Set(res.map((r) => r.flags))
    if (flags.size > 1) throw new Error(`patterns compile with different regex flags: ${[...flags].join(', ')}`)
    return new RegExp(res.map((r) => r.source).join('|'), res[0]?.flags ?? '')
  }
  const literal = new Set(patterns)
  if (!patterns.every((p) => SIMPLE_PATTERN.test(p))) {
    const re = compile()
    return (name) => name !== '' && (literal.has(name) || re.test(name))
  }
  const fold = options.nocase ? (s: string) => s.toUpperCase() : (s: string) => s
  const split = patterns.map((p) => fold(p).split('*'))
  let re: RegExp | undefined
  return (name) => {
    if (name === '') return false
    if (literal.has(name)) return true
    if (!plainName(name)) return (re ??= compile()).test(name)
    const folded = fold(name)
    return split.some((parts) => starMatch(folded, parts))
  }
}

const secret = anyPattern(SECRET_PATTERNS, { nocase: true })
const loader = anyPattern(LOADER_PATTERNS)
const never = () => false
const always = () => true

/** Compiling a matcher costs far more than using it: one per pattern list. */
const matchers = new Map<string, (name: string) => boolean>()
function matcher(patterns: readonly string[] | undefined, empty: (s: string) => boolean): (name: string) => boolean {
  if (!patterns || patterns.length === 0) return empty
  const key = patterns.join('\0')
  let m = matchers.get(key)
  if (!m) matchers.set(key, (m = picomatch(patterns as string[])))
  return m
}

/** A sandbox snapshots its base environment once: filter each snapshot once per policy. */
const filtered = new WeakMap<object, WeakMap<object, EnvResult>>()

export function buildEnv(base: NodeJS.ProcessEnv, policy: Profile['env'], extra: Record<string, string>): EnvResult {
  let perBase = filtered.get(base)
  if (!perBase) filtered.set(base, (perBase = new WeakMap()))
  let r = perBase.get(policy)
  if (!r) perBase.set(policy, (r = filterEnv(base, policy)))
  return { env: { ...r.env, ...policy.set, ...extra }, dropped: r.dropped }
}

function filterEnv(base: NodeJS.ProcessEnv, policy: Profile['env']): EnvResult {
  const denied = matcher(policy.deny, never)
  const allowed = policy.allow ? matcher(policy.allow, never) : always
  const env: Record<string, string> = {}
  const dropped: string[] = []
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue
    const drop = !allowed(name) || denied(name) || loader(name) || (policy.dropSecrets && secret(name))
    if (drop) dropped.push(name)
    else env[name] = value
  }
  return { env, dropped: dropped.sort() }
}
