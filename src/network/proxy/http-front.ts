/**
 * The HTTP front end of the proxy: CONNECT tunnels (HTTPS and anything else
 * over TCP) and plain HTTP requests in absolute form (`GET http://host/…`).
 * node:http parses the requests; this file only extracts the target, checks
 * that the Host header names the same authority, asks the gate, and relays.
 */
import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { canonicalHost } from '../host-pattern.js'
import { basicMatches, needsCredential } from './credential.js'
import { awaitClose, awaitRequest, requestArrived, tunnelAsked } from './deadline.js'
import type { NetworkGate } from './gate.js'
import { openTunnel } from './tunnel.js'

interface Authority {
  host: string
  port: number
}

/** `host:port` (CONNECT's authority form), or undefined when it is not exactly that. */
function parseAuthority(text: string | undefined, defaultPort: number | undefined): Authority | undefined {
  // (URL would drop a port that is the scheme's default: parse the port here.)
  const m = /^(\[[0-9a-fA-F:.]+\]|[^\s/@?#:[\]]+)(?::(\d{1,5}))?$/.exec(text ?? '')
  if (!m) return undefined
  const port = m[2] !== undefined ? Number(m[2]) : defaultPort
  if (port === undefined || port < 1 || port > 65535) return undefined
  return { host: canonicalHost(m[1]!), port }
}

/** A Host header that names another authority than the request line is refused (a second, unchecked target). */
function hostMatches(header: string | undefined, target: Authority, defaultPort: number): boolean {
  if (header === undefined) return true
  const h = parseAuthority(header, defaultPort)
  return h !== undefined && h.host === target.host && h.port === target.port
}

const CHALLENGE = 'Basic realm="cordon"'

function refuseSocket(socket: Socket, status: string, reason: string, challenge = false): void {
  const body = `cordon: ${reason}\n`
  const auth = challenge ? `Proxy-Authenticate: ${CHALLENGE}\r\n` : ''
  socket.end(`HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n${auth}X-Cordon-Reason: ${encodeURIComponent(reason)}\r\n\r\n${body}`)
  awaitClose(socket) // a client that keeps its end open does not keep the proxy's
}

function refuseResponse(res: ServerResponse, status: number, reason: string, challenge = false): void {
  if (res.headersSent) return void res.destroy()
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close', 'x-cordon-reason': encodeURIComponent(reason), ...(challenge ? { 'proxy-authenticate': CHALLENGE } : {}) })
  res.end(`cordon: ${reason}\n`)
}

async function onConnect(gate: NetworkGate, req: IncomingMessage, socket: Socket, head: Buffer): Promise<void> {
  socket.pause() // until the tunnel reads: nothing is lost while the gate decides
  socket.on('error', () => socket.destroy())
  const target = parseAuthority(req.url, undefined)
  if (!target) return refuseSocket(socket, '400 Bad Request', `CONNECT needs host:port, got ${JSON.stringify(req.url)}`)
  if (!hostMatches(req.headers.host, target, target.port)) return refuseSocket(socket, '403 Forbidden', `Host header ${JSON.stringify(req.headers.host)} does not match the CONNECT target ${req.url}`)
  const v = await gate.check(target.host, target.port, 'https')
  if (!v.ok) return refuseSocket(socket, '403 Forbidden', v.record.reason)
  openTunnel(socket, head, { ...target, address: v.address, record: v.record }, {
    ok: () => socket.write('HTTP/1.1 200 Connection Established\r\n\r\n'),
    fail: (reason) => refuseSocket(socket, '502 Bad Gateway', reason),
  })
}

/** Headers for the proxy's eyes only, and hop-by-hop ones (RFC 9110 §7.6.1): never forwarded. */
const DROP = new Set(['proxy-authorization', 'proxy-connection', 'connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade'])

function forwardHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const named = new Set((String(headers.connection ?? '')).split(',').map((s) => s.trim().toLowerCase()))
  const out: Record<string, string | string[]> = {}
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !DROP.has(k) && !named.has(k)) out[k] = v
  return out
}

async function onRequest(gate: NetworkGate, agent: Agent, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let url: URL
  try {
    url = new URL(req.url ?? '')
  } catch {
    return refuseResponse(res, 400, 'a proxy request needs an absolute http:// URI')
  }
  if (url.protocol !== 'http:') return refuseResponse(res, 400, `only http:// is proxied this way (https goes through CONNECT), got ${url.protocol}`)
  const target: Authority = { host: canonicalHost(url.hostname), port: url.port ? Number(url.port) : 80 }
  if (url.username || url.password) return refuseResponse(res, 400, 'credentials in the URI are not forwarded')
  if (!hostMatches(req.headers.host, target, 80)) return refuseResponse(res, 403, `Host header ${JSON.stringify(req.headers.host)} does not match the request URI host ${url.host}`)
  const v = await gate.check(target.host, target.port, 'http')
  if (!v.ok) return refuseResponse(res, 403, v.record.reason)
  const upstream = httpRequest({ host: v.address, port: target.port, method: req.method, path: `${url.pathname}${url.search}`, headers: { ...forwardHeaders(req.headers), host: url.host }, setHost: false, agent })
  upstream.on('response', (up) => {
    res.writeHead(up.statusCode ?? 502, up.statusMessage, forwardHeaders(up.headers))
    up.pipe(res)
  })
  upstream.on('error', (err: NodeJS.ErrnoException) => refuseResponse(res, 502, `cannot reach ${target.host}:${target.port} (${err.code ?? err.message})`))
  res.on('close', () => upstream.destroy())
  req.pipe(upstream)
}

/** Requests of a connection still being answered (node:http emits a pipelined one before the one ahead is done). */
const answering = new WeakMap<Socket, number>()

/**
 * The deadline (deadline.ts) is off while a request of this connection is
 * being answered, and on again once the last one is: a kept-alive
 * connection waits for its next request as a new one does.
 */
function untilAnswered(socket: Socket, res: ServerResponse): void {
  requestArrived(socket)
  answering.set(socket, (answering.get(socket) ?? 0) + 1)
  res.once('close', () => {
    const left = (answering.get(socket) ?? 1) - 1
    answering.set(socket, left)
    if (left === 0) awaitRequest(socket)
  })
}

/**
 * An http.Server that is never listened on: the proxy hands it the
 * connections that speak HTTP. Plain requests reuse upstream connections
 * (keep-alive, keyed by the vetted address and port, so a reused connection
 * goes where a new one would): a TCP handshake less per request.
 */
export function createHttpFront(gate: NetworkGate, token: string | undefined): { server: Server; agent: Agent } {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 })
  const server = createServer()
  // A handler that throws drops its connection, never the caller's process.
  const authorized = (req: IncomingMessage) => token === undefined || !needsCredential(req.socket) || basicMatches(req.headers['proxy-authorization'], token)
  server.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    tunnelAsked(socket)
    if (!authorized(req)) return refuseSocket(socket, '407 Proxy Authentication Required', 'this proxy belongs to a cordon sandbox: use the proxy URL from its environment', true)
    onConnect(gate, req, socket, head).catch(() => socket.destroy())
  })
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    untilAnswered(req.socket, res)
    if (!authorized(req)) return refuseResponse(res, 407, 'this proxy belongs to a cordon sandbox: use the proxy URL from its environment', true)
    onRequest(gate, agent, req, res).catch(() => res.destroy())
  })
  server.on('clientError', (_err, socket: Socket) => refuseSocket(socket, '400 Bad Request', 'malformed HTTP request'))
  return { server, agent }
}
