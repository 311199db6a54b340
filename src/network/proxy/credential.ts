/**
 * The proxy's credential: a random token per sandbox, given to the command
 * in its proxy URLs (`http://cordon:TOKEN@127.0.0.1:PORT`). The proxy's TCP
 * port is on the host's loopback, where every local user can connect: the
 * token keeps other users from reaching allowed hosts through it or making
 * it ask the approver. The unix socket (namespace mode) needs none: it lies
 * in a directory only the caller can enter.
 */
import { timingSafeEqual } from 'node:crypto'
import { PROXY_USER } from './token.js'
export { newProxyToken, PROXY_USER } from './token.js'
import type { Socket } from 'node:net'



function same(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/** `Proxy-Authorization: Basic base64(cordon:TOKEN)` (RFC 9110 §11.7.2, RFC 7617). */
export function basicMatches(header: string | undefined, token: string): boolean {
  const m = /^Basic +([A-Za-z0-9+/=]+)$/i.exec(header?.trim() ?? '')
  return m !== null && same(Buffer.from(m[1]!, 'base64').toString('utf8'), `${PROXY_USER}:${token}`)
}

/** SOCKS5 username/password (RFC 1929). */
export function userPassMatches(user: string, pass: string, token: string): boolean {
  return same(user, PROXY_USER) && same(pass, token)
}

/** Connections that must show the credential: those on the TCP port. */
const mustAuthenticate = new WeakSet<Socket>()

export function requireCredential(socket: Socket): void {
  mustAuthenticate.add(socket)
}

export function needsCredential(socket: Socket): boolean {
  return mustAuthenticate.has(socket)
}
