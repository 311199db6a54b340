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
import { SetupError } from '../../errors.js'
import type { ProxyRequestRecord } from '../../platform/enforcement.js'
import { NetworkGate, type GateOptions } from './gate.js'
import { createHttpFront } from './http-front.js'
import { serveSocks5 } from './socks5.js'

export type { GateOptions, LookupFunction, NetworkAnswer, NetworkAsk } from './gate.js'

export interface NetworkProxy {
  /** The loopback port (HTTP and SOCKS5). */
  readonly port: number
  readonly host: '127.0.0.1'
  /** Every request decided so far, in order (bounded). */
  readonly records: readonly ProxyRequestRecord[]
  /** Stop listening and cut every open tunnel. */
  close(): Promise<void>
}

function dispatch(gate: NetworkGate, http: ReturnType<typeof createHttpFront>, socket: Socket): void {
  socket.once('data', (first: Buffer) => {
    socket.pause()
    if (first[0] === 0x05) return serveSocks5(gate, socket, first)
    // Hand the bytes back and let node:http parse the rest.
    socket.unshift(first)
    http.emit('connection', socket)
    socket.resume()
  })
  socket.on('error', () => socket.destroy())
}

/** Start a proxy on 127.0.0.1 (an ephemeral port unless `port` is given). Resolves once it listens. */
export function startNetworkProxy(options: GateOptions & { port?: number }): Promise<NetworkProxy> {
  const gate = new NetworkGate(options)
  const http = createHttpFront(gate)
  const sockets = new Set<Socket>()
  const server: Server = createServer({ noDelay: true }, (socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
    dispatch(gate, http, socket)
  })
  // The proxy must never keep the caller's process alive on its own.
  server.unref()
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(new SetupError('network-proxy', 'listen', err.errno ? -err.errno : 0, err.code ?? 'EUNKNOWN', `the network proxy cannot listen on 127.0.0.1: ${err.message}`)))
    server.listen(options.port ?? 0, '127.0.0.1', 1024, () => {
      const port = (server.address() as { port: number }).port
      resolve({
        port,
        host: '127.0.0.1',
        records: gate.records,
        close: () =>
          new Promise<void>((done) => {
            for (const s of sockets) s.destroy()
            server.close(() => done())
          }),
      })
    })
  })
}
