/**
 * Network failures in a run whose profile has the network off. With the
 * network off, cordon's seccomp filter fails `socket()` with EAFNOSUPPORT,
 * so that errno (in any of its spellings) is the strongest evidence; name
 * resolution and connection failures follow from it (libc's resolver needs
 * a socket too). None of these count when the network was on.
 */
import { lstatSync } from 'node:fs'
import type { NetworkProtocol } from '../../exec-policy/index.js'

const STRONG = /\bEAFNOSUPPORT\b|Address family not supported by protocol|\[Errno 97\]/i
const WEAK =
  /Could not resolve host|Temporary failure in name resolution|unable to resolve host|Name or service not known|No address associated with hostname|\bEAI_AGAIN\b|\bENOTFOUND\b|getaddrinfo|Couldn't connect to server|Failed to connect to|Network is unreachable|\bENETUNREACH\b|Could not connect to/i

export interface NetworkEvidence {
  readonly strength: 'errno' | 'symptom'
  readonly host?: string
  readonly port?: number
}

export function networkEvidence(line: string): NetworkEvidence | undefined {
  const strength = STRONG.test(line) ? 'errno' : WEAK.test(line) ? 'symptom' : undefined
  if (!strength) return undefined
  const target = targetIn(line)
  return { strength, ...target }
}

/** The host (and port) a failure line names, when it names one. */
function targetIn(line: string): { host?: string; port?: number } {
  const patterns: RegExp[] = [
    /Failed to connect to (\S+?) port (\d+)/i, // curl
    /connect E[A-Z]+ \[?([0-9a-f.:]+?)\]?:(\d+)\b/i, // node
    /Connecting to (?:\S+\|)?([^\s:|]+)\|?:(\d+)/i, // wget
    /[a-z][a-z0-9+.-]*:\/\/([^/\s:'"]+)(?::(\d+))?/i, // any URL
    /(?:Could not resolve host|unable to resolve host address|getaddrinfo E[A-Z_]+|Resolving):? ['‘"]?([A-Za-z0-9.-]+)/i,
  ]
  for (const re of patterns) {
    const m = re.exec(line)
    if (m?.[1]) return m[2] ? { host: m[1], port: Number(m[2]) } : { host: m[1] }
  }
  return {}
}

/**
 * A host unix socket a failure line names: a `unix://` or `unix:` address
 * (docker, D-Bus), or an absolute path that is a socket on this host.
 * With the network off or `inet`, a new AF_UNIX socket fails with the same
 * EAFNOSUPPORT as any other: this tells which one the command wanted.
 */
export function unixSocketIn(line: string): string | undefined {
  const url = /\bunix:(?:\/\/)?(\/[^\s'"‘’`,;)]+)/i.exec(line)
  if (url?.[1]) return url[1]
  for (const m of line.matchAll(/(?:^|[\s'"‘`=(])(\/[^\s'"‘’`,;:)]+)/g)) {
    try {
      if (m[1] && lstatSync(m[1]).isSocket()) return m[1]
    } catch {
      /* not there */
    }
  }
  return undefined
}

/** The first http(s) URL in the command, as a fallback for the target. */
export function targetInArgv(argv: readonly string[]): { host: string; port?: number; protocol: NetworkProtocol } | undefined {
  for (const arg of argv) {
    const m = /\b(https?):\/\/\[?([A-Za-z0-9.:-]+?)\]?(?::(\d+))?(?:[/?#'"\s]|$)/.exec(arg)
    if (m?.[2]) return { host: m[2], protocol: m[1] as NetworkProtocol, ...(m[3] ? { port: Number(m[3]) } : {}) }
  }
  return undefined
}

export function protocolFor(port: number | undefined): NetworkProtocol {
  return port === 443 ? 'https' : 'http'
}
