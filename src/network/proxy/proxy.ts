/**
 * cordon's network proxy: one loopback port, in the caller's Node process,
 * serving HTTP (CONNECT and absolute-URI requests) and SOCKS5 alike — the
 * first byte of a connection tells them apart (SOCKS5 starts with 0x05, an
 * HTTP request with a method name). One port keeps the sandbox's Landlock
 * rule to one port.
 *
 * Every connection is decided by the gate (gate.ts): allowlist, approvals,
 * the proxy's own name resolution and address checks; the records say what
 * was asked for and what was decided.
 */
import { createServer, type Server, type Socket } from 'node:net'
import type { Server as HttpServer } from 'node:http'
import { SetupError } from '../../errors.js'
import type { ProxyRequestRecord } from '../../platform/enforcement.js'
import { requireCredential } from './credential.js'
import { awaitRequest } from './deadline.js'
import { NetworkGate, type GateOptions } from './gate.js'
import { createHttpFront } from './http-front.js'
import { HANDED_OFF, type NativeTunnel } from './native-relay.js'
import { serveSocks5 } from './socks5.js'

export type { GateOptions, LookupFunction, NetworkAnswer, NetworkAsk } from './gate.js'

export interface NetworkProxy {
  /** The loopback port (HTTP and SOCKS5). */
  readonly port: number
  readonly host: '127.0.0.1'
  /** The unix socket it also listens on (namespace mode reaches it there), when asked for. */
  readonly socketPath: string | undefined
  /** Every request decided so far, in order (bounded). */
  readonly records: readonly ProxyRequestRecord[]
  /** Stop listening and cut every open tunnel. */
  close(): Promise<void>
}

function dispatch(gate: NetworkGate, http: HttpServer, socket: Socket, token: string | undefined): void {
  if (token !== undefined) requireCredential(socket)
  awaitRequest(socket) // deadline.ts: until the request is complete
  socket.once('data', (first: Buffer) => {
    socket.pause()
    if (first[0] === 0x05) return serveSocks5(gate, socket, first, token)
    // Hand the bytes back and let node:http parse the rest.
    socket.unshift(first)
    http.emit('connection', socket)
    socket.resume()
  })
  socket.on('error', () => socket.destroy())
}

function listen(server: Server, where: { port: number; host: string } | { path: string }): Promise<void> {
  return new Promise((resolve, reject) => {
    const at = 'path' in where ? where.path : `${where.host}:${where.port}`
    server.once('error', (err: NodeJS.ErrnoException) => reject(new SetupError('network-proxy', 'listen', err.errno ? -err.errno : 0, err.code ?? 'EUNKNOWN', `the network proxy cannot listen on ${at}: ${err.message}`)))
    if ('path' in where) server.listen({ path: where.path, backlog: 1024 }, resolve)
    else server.listen({ port: where.port, host: where.host, backlog: 1024 }, resolve)
  })
}

/**
 * Connections one proxy holds at once (client sockets and the tunnels the
 * native relay carries, as its own bound): past it a new connection is
 * reset at once. Without a bound a sandboxed command opening connections
 * in a loop held ~19,000 of the caller's descriptors (red team), starving
 * the caller and every other sandbox of its process.
 */
export const MAX_PROXY_CONNECTIONS = 1024

/**
 * Start a proxy on 127.0.0.1 (an ephemeral port unless `port` is given),
 * and on `socketPath` too when given (namespace mode's forwarder connects
 * there). With `token`, the TCP port answers only clients that show it
 * (credential.ts). Resolves once it listens.
 */
export async function startNetworkProxy(options: GateOptions & { port?: number; socketPath?: string; token?: string }): Promise<NetworkProxy> {
  const gate = new NetworkGate(options)
  const { server: http, agent } = createHttpFront(gate, options.token)
  // Open connections, and the tunnels the native relay carries on without their socket: close() cuts both.
  const sockets = new Set<{ destroy(): void }>()
  const make = (token: string | undefined, tcp: boolean): Server => {
    const server = createServer({ noDelay: true }, (socket) => {
      // A reset (RST) is TCP's; resetAndDestroy() throws on the unix socket (ERR_INVALID_HANDLE_TYPE: an uncaught exception in the caller — review).
      if (sockets.size >= MAX_PROXY_CONNECTIONS) return void (tcp ? socket.resetAndDestroy() : socket.destroy())
      sockets.add(socket)
      socket.once('close', () => sockets.delete(socket))
      socket.once(HANDED_OFF, (tunnel: NativeTunnel) => {
        sockets.add(tunnel)
        void tunnel.done.then(() => sockets.delete(tunnel))
      })
      dispatch(gate, http, socket, token)
    })
    // The proxy must never keep the caller's process alive on its own.
    return server.unref()
  }
  // The TCP port asks for the token (when there is one); the unix socket does not.
  const servers = [make(options.token, true)]
  await listen(servers[0]!, { port: options.port ?? 0, host: '127.0.0.1' })
  if (options.socketPath) {
    servers.push(make(undefined, false))
    await listen(servers[1]!, { path: options.socketPath }).catch((err: unknown) => {
      servers[0]!.close()
      throw err
    })
  }
  return {
    port: (servers[0]!.address() as { port: number }).port,
    host: '127.0.0.1',
    socketPath: options.socketPath,
    records: gate.records,
    close: () => {
      for (const s of sockets) s.destroy()
      agent.destroy()
      return Promise.all(servers.map((s) => new Promise<void>((done) => s.close(() => done())))).then(() => {})
    },
  }
}
