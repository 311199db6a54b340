/**
 * SOCKS5 (RFC 1928), TCP CONNECT only, no authentication. Small enough to
 * parse here: a greeting, one request, one reply. BIND and UDP ASSOCIATE
 * are refused (`command not supported`): the proxy relays TCP only, and the
 * sandbox has no UDP to send with anyway.
 */
import { isIPv4, type Socket } from 'node:net'
import { userPassMatches } from './credential.js'
import { awaitClose, tunnelAsked } from './deadline.js'
import type { NetworkGate } from './gate.js'
import { openTunnel } from './tunnel.js'

const VERSION = 0x05
const REP = { ok: 0x00, fail: 0x01, notAllowed: 0x02, hostUnreachable: 0x04, commandUnsupported: 0x07, addressUnsupported: 0x08 } as const

/** A greeting or request split across segments: collect bytes until `need` says how many make a message. */
class Collector {
  private buf: Buffer = Buffer.alloc(0)
  add(chunk: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk
  }
  take(n: number): Buffer {
    const out = this.buf.subarray(0, n)
    this.buf = this.buf.subarray(n)
    return out
  }
  get length(): number {
    return this.buf.length
  }
  peek(i: number): number | undefined {
    return this.buf[i]
  }
}

/** Bytes of the greeting (VER NMETHODS METHODS…), or undefined while incomplete. */
function greetingLength(c: Collector): number | undefined {
  const n = c.peek(1)
  return n === undefined || c.length < 2 + n ? undefined : 2 + n
}

/** Bytes of the request (VER CMD RSV ATYP ADDR PORT), 0 for an unknown ATYP, undefined while incomplete. */
function requestLength(c: Collector): number | undefined {
  const atyp = c.peek(3)
  if (atyp === undefined) return undefined
  const addr = atyp === 0x01 ? 4 : atyp === 0x04 ? 16 : atyp === 0x03 ? (c.peek(4) === undefined ? undefined : 1 + c.peek(4)!) : 0
  if (addr === undefined) return undefined
  if (addr === 0) return 0
  return c.length < 4 + addr + 2 ? undefined : 4 + addr + 2
}

function addressOf(req: Buffer): string {
  const atyp = req[3]
  if (atyp === 0x01) return [...req.subarray(4, 8)].join('.')
  if (atyp === 0x03) return req.subarray(5, 5 + req[4]!).toString('latin1')
  const groups: string[] = []
  for (let i = 0; i < 16; i += 2) groups.push(req.readUInt16BE(4 + i).toString(16))
  return groups.join(':')
}

function reply(socket: Socket, rep: number): void {
  // BND.ADDR 0.0.0.0:0: the client has no use for the proxy's outbound address.
  socket.write(Buffer.from([VERSION, rep, 0x00, 0x01, 0, 0, 0, 0, 0, 0]))
}

function refuse(socket: Socket, rep: number): void {
  reply(socket, rep)
  socket.end()
  awaitClose(socket) // a client that keeps its end open does not keep the proxy's
}

async function onRequest(gate: NetworkGate, socket: Socket, req: Buffer, rest: Buffer): Promise<void> {
  if (req[0] !== VERSION) return void socket.destroy()
  if (req[1] !== 0x01) return refuse(socket, REP.commandUnsupported) // CONNECT only
  const host = addressOf(req)
  const port = req.readUInt16BE(req.length - 2)
  const v = await gate.check(host, port, 'socks5_tcp')
  if (!v.ok) return refuse(socket, REP.notAllowed)
  openTunnel(socket, rest, { host: v.record.host, port, address: v.address, record: v.record }, { ok: () => reply(socket, REP.ok), fail: () => refuse(socket, isIPv4(v.address) ? REP.hostUnreachable : REP.fail) })
}

/** Bytes of a username/password message (VER ULEN UNAME PLEN PASSWD, RFC 1929), or undefined while incomplete. */
function userPassLength(c: Collector): number | undefined {
  const ulen = c.peek(1)
  const plen = ulen === undefined ? undefined : c.peek(2 + ulen)
  return ulen === undefined || plen === undefined || c.length < 3 + ulen + plen ? undefined : 3 + ulen + plen
}

/**
 * Serve one SOCKS5 connection whose first bytes are `first`. With `token`
 * (the TCP port), only username/password (0x02) with the sandbox's
 * credential is accepted; without (the unix socket), no authentication.
 */
export function serveSocks5(gate: NetworkGate, socket: Socket, first: Buffer, token: string | undefined): void {
  const c = new Collector()
  let stage: 'greeting' | 'auth' | 'request' = 'greeting'
  socket.on('error', () => socket.destroy())
  const step = () => {
    if (stage === 'greeting') {
      const n = greetingLength(c)
      if (n === undefined) return
      const g = c.take(n)
      const method = token === undefined ? 0x00 : 0x02
      // No acceptable method: 0xFF, and the connection ends.
      if (g[0] !== VERSION || !g.subarray(2).includes(method)) return void socket.end(Buffer.from([VERSION, 0xff]))
      socket.write(Buffer.from([VERSION, method]))
      stage = method === 0x02 ? 'auth' : 'request'
    }
    if (stage === 'auth') {
      const n = userPassLength(c)
      if (n === undefined) return
      const m = c.take(n)
      const ulen = m[1]!
      const ok = m[0] === 0x01 && userPassMatches(m.subarray(2, 2 + ulen).toString('utf8'), m.subarray(3 + ulen).toString('utf8'), token!)
      if (!ok) return void socket.end(Buffer.from([0x01, 0x01]))
      socket.write(Buffer.from([0x01, 0x00]))
      stage = 'request'
    }
    const n = requestLength(c)
    if (n === undefined) return
    socket.off('data', onData) // the request is complete: later bytes are the tunnel's (or, refused, dropped)
    if (n === 0) return refuse(socket, REP.addressUnsupported)
    socket.pause() // until the tunnel reads: nothing is lost while the gate decides
    tunnelAsked(socket) // the client said what it wants: the gate's time is not the client's
    const req = c.take(n)
    onRequest(gate, socket, req, c.take(c.length)).catch(() => socket.destroy())
  }
  const onData = (chunk: Buffer) => {
    c.add(chunk)
    // A client sending more than a greeting and a request before the reply is misbehaving: bound it.
    if (c.length > 600) return void socket.destroy()
    step()
  }
  socket.on('data', onData)
  socket.resume() // the dispatcher paused it to look at the first byte
  onData(first)
}
