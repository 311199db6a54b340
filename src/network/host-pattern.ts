/**
 * Host patterns of a network allowlist: `registry.npmjs.org`, `*.github.com`,
 * an IP literal (`10.0.0.5`, `[::1]`), each with an optional `:port`.
 *
 * `*.x.com` matches every name strictly below x.com, never x.com itself
 * (write both when both are meant): a wildcard never quietly covers more
 * than it reads as. A bare `*` — every host — is refused: that is network
 * `inet`, and saying so is the caller's explicit choice, not a list entry.
 */
import { builtin } from '../native/builtin.js'

const net = builtin<typeof import('node:net')>('node:net')
import { PolicyError } from '../errors.js'

export interface HostPattern {
  /** The entry as written. */
  readonly raw: string
  /** `exact`: one name; `below`: names strictly below `host` (`*.host`); `ip`: one address. */
  readonly kind: 'exact' | 'below' | 'ip'
  /** Lower case, no trailing dot; for `ip`, the address without brackets. */
  readonly host: string
  /** Only this port; undefined: any port. */
  readonly port: number | undefined
}

const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/

function splitPort(raw: string, where: string): { host: string; port: number | undefined } {
  const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(raw)
  if (bracket) return { host: bracket[1]!, port: portOf(bracket[2], where) }
  const colon = raw.lastIndexOf(':')
  // More than one colon without brackets: an IPv6 literal, no port.
  if (colon < 0 || raw.indexOf(':') !== colon) return { host: raw, port: undefined }
  return { host: raw.slice(0, colon), port: portOf(raw.slice(colon + 1), where) }
}

function portOf(text: string | undefined, where: string): number | undefined {
  if (text === undefined) return undefined
  const n = /^\d{1,5}$/.test(text) ? Number(text) : NaN
  if (!(n >= 1 && n <= 65535)) throw new PolicyError(`bad port '${text}' (1-65535)`, { where })
  return n
}

/** Lower-case a name and drop one trailing dot (`example.com.` is `example.com`). */
export function canonicalHost(host: string): string {
  let h = host.trim().toLowerCase()
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1)
  // One spelling per IPv6 address (`0:0::1` is `::1`), so a deny entry
  // cannot be stepped around by writing the address another way.
  if (net().isIP(h) === 6) return new URL(`http://[${h}]/`).hostname.slice(1, -1)
  return h.endsWith('.') ? h.slice(0, -1) : h
}

function checkName(name: string, raw: string, where: string): void {
  const labels = name.split('.')
  if (labels.some((l) => !LABEL.test(l))) throw new PolicyError(`'${raw}' is not a host name, IP literal or *.domain pattern`, { where })
}

/** Parse one allow/deny entry. Throws PolicyError naming `where` for anything it cannot read exactly. */
export function parseHostPattern(raw: string, where: string): HostPattern {
  if (typeof raw !== 'string' || raw.trim() === '') throw new PolicyError('empty host pattern', { where })
  if (/:\/\/|[/?#@\s]/.test(raw.trim())) throw new PolicyError(`'${raw}' must be a host (with an optional :port), without scheme, path or credentials`, { where })
  const { host: rawHost, port } = splitPort(raw.trim(), where)
  const host = canonicalHost(rawHost)
  if (host === '*') throw new PolicyError("a bare '*' would allow every host: use network 'inet' to mean that", { where })
  if (net().isIP(host)) return { raw, kind: 'ip', host, port }
  if (host.startsWith('*.')) {
    const base = host.slice(2)
    if (base.includes('*')) throw new PolicyError(`'${raw}': only one leading '*.' is allowed`, { where })
    checkName(base, raw, where)
    return { raw, kind: 'below', host: base, port }
  }
  if (host.includes('*')) throw new PolicyError(`'${raw}': a wildcard may only be a whole leading label ('*.example.com')`, { where })
  checkName(host, raw, where)
  return { raw, kind: 'exact', host, port }
}

/** Does `pattern` cover this canonical host (name or IP) and port? */
export function matchesHost(pattern: HostPattern, host: string, port: number): boolean {
  if (pattern.port !== undefined && pattern.port !== port) return false
  if (pattern.kind === 'below') return host.endsWith(`.${pattern.host}`)
  return pattern.host === host
}
