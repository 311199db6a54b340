/**
 * The proxy's request deadline (src/network/proxy/deadline.ts): a client
 * that does not finish saying what it wants within REQUEST_DEADLINE_MS is
 * dropped — it would otherwise hold a connection slot and a descriptor of
 * the caller until its sandbox closes — while the time the gate takes (an
 * approver) and the time an answer is relayed are never counted.
 * The deadline's timers are faked; the sockets are real.
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http'
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { connect, type AddressInfo, type Socket } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { buildNetworkLists } from '../../../src/network/policy.js'
import { REQUEST_DEADLINE_MS } from '../../../src/network/proxy/deadline.js'
import { startNetworkProxy, type GateOptions, type LookupFunction, type NetworkAnswer, type NetworkProxy } from '../../../src/network/proxy/proxy.js'

// The names resolve to the origin's loopback address, which the allowlist names too (loopback needs an entry of its own).
const lookup: LookupFunction = (host, _o, cb) => (host.endsWith('.test') ? cb(null, [{ address: '127.0.0.2', family: 4 }]) : cb(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' }), []))

let origin: HttpServer
let port = 0
const proxies: NetworkProxy[] = []
beforeAll(async () => {
  origin = createHttpServer((req, res) => res.end(`origin ${req.url}`))
  await new Promise<void>((r) => origin.listen(0, '127.0.0.2', r))
  port = (origin.address() as AddressInfo).port
})
afterEach(() => vi.useRealTimers())
afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()))
  origin.close()
})

async function proxy(extra: Partial<GateOptions> = {}): Promise<NetworkProxy> {
  const p = await startNetworkProxy({ lists: buildNetworkLists({ allow: ['origin.test', '127.0.0.2'] }), lookup, ...extra })
  proxies.push(p)
  return p
}

interface Client {
  socket: Socket
  text: () => string
  closed: () => boolean
  ended: () => boolean
}

function client(p: NetworkProxy, first: string | Buffer, allowHalfOpen = false): Promise<Client> {
  return new Promise((resolve, reject) => {
    let text = ''
    let closed = false
    let ended = false
    let connected = false
    const socket = connect({ port: p.port, host: '127.0.0.1', allowHalfOpen }, () => {
      connected = true
      if (first.length) socket.write(first)
      resolve({ socket, text: () => text, closed: () => closed, ended: () => ended })
    })
    socket.on('data', (d) => (text += d.toString('latin1')))
    socket.on('end', () => (ended = true))
    socket.on('close', () => (closed = true))
    // A reset after the proxy let go is what a test waits for; only a failed connect is an error.
    socket.on('error', (err) => connected || reject(err))
  })
}

/** Real event-loop turns until `done` holds (socket events are not faked), for at most `ms` of real time. */
async function until(done: () => boolean, what: string, ms = 5_000): Promise<void> {
  const end = Date.now() + ms
  while (!done()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setImmediate(r))
  }
}

/**
 * Whether this process still holds the proxy's end of the connection from the
 * client's port `clientPort`: its row in /proc/net/tcp (local port the
 * proxy's, remote port `clientPort`), and a descriptor of ours on its inode.
 */
function proxyHolds(p: NetworkProxy, clientPort: number): boolean {
  const hex = (n: number) => n.toString(16).toUpperCase().padStart(4, '0')
  const rows = readFileSync('/proc/self/net/tcp', 'utf8').split('\n').slice(1)
  const row = rows.map((r) => r.trim().split(/\s+/)).find((f) => f[1]?.endsWith(`:${hex(p.port)}`) && f[2]?.endsWith(`:${hex(clientPort)}`))
  if (!row) return false
  const inode = row[9]
  return readdirSync('/proc/self/fd').some((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === `socket:[${inode}]`
    } catch {
      return false // a descriptor closed while listing
    }
  })
}

/** A few real turns, for what must not happen. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r))
}

describe('network proxy: the request deadline', () => {
  it(`drops a client that has not finished its request after ${REQUEST_DEADLINE_MS} ms: silent, half an HTTP request, a SOCKS5 greeting alone`, async () => {
    const p = await proxy()
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const clients = await Promise.all([client(p, ''), client(p, 'CONNECT origin.test:1 HTTP/1.1\r\nHost: orig'), client(p, Buffer.from([5, 1, 0]))])
    await until(() => vi.getTimerCount() >= 3 && clients[2]!.text().length === 2, 'the proxy to accept all three')
    vi.advanceTimersByTime(REQUEST_DEADLINE_MS - 1)
    await settle()
    expect(clients.map((c) => c.closed())).toEqual([false, false, false])
    vi.advanceTimersByTime(1)
    // Within a second of real time: nothing but the deadline closes them (Node's own timeouts are far longer).
    await until(() => clients.every((c) => c.closed()), 'the proxy to drop them', 1_000)
  })

  it('lets go of a refused client that keeps its end open, once the deadline has passed: CONNECT 400/403/407, SOCKS5 refusals', async () => {
    const plain = await proxy()
    const withToken = await startNetworkProxy({ lists: buildNetworkLists({ allow: ['origin.test', '127.0.0.2'] }), lookup, token: 'sekrit' })
    proxies.push(withToken)
    const name = Buffer.from('denied.example')
    const cases: [NetworkProxy, string | Buffer][] = [
      [plain, 'CONNECT nope HTTP/1.1\r\n\r\n'], // 400
      [plain, 'CONNECT denied.example:443 HTTP/1.1\r\nHost: denied.example:443\r\n\r\n'], // 403
      [withToken, `CONNECT origin.test:${port} HTTP/1.1\r\nHost: origin.test:${port}\r\n\r\n`], // 407: no credential
      [plain, Buffer.concat([Buffer.from([5, 1, 0, 5, 1, 0, 3, name.length]), name, Buffer.from([1, 187])])], // SOCKS5: not allowed
      [plain, Buffer.from([5, 1, 0, 5, 1, 0, 9, 0, 0])], // SOCKS5: address type not supported
    ]
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    // allowHalfOpen: the client reads the refusal and keeps its own end open, as a command holding slots would.
    const clients = await Promise.all(cases.map(([p, first]) => client(p, first, true)))
    await until(() => clients.every((c) => c.ended()), 'every refusal')
    expect(clients.map((c) => c.text().length > 0)).toEqual(cases.map(() => true))
    // Before the deadline the proxy still reads (and drops) what the client sends.
    for (const c of clients) c.socket.write('more')
    await settle()
    expect(clients.map((c) => c.closed())).toEqual(cases.map(() => false))
    vi.advanceTimersByTime(REQUEST_DEADLINE_MS)
    await settle()
    // The proxy's socket is gone: what the client sends now is answered with a reset, which
    // its next write reports (its read side has ended, so nothing else looks).
    for (const c of clients) c.socket.write('more')
    await new Promise((r) => setImmediate(r))
    await until(() => (clients.forEach((c) => c.closed() || c.socket.write('more')), clients.every((c) => c.closed())), 'the proxy to have let go', 1_000)
  })

  it('a refused client that closes its end is let go at once, not at the deadline', async () => {
    const p = await proxy()
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const c = await client(p, 'CONNECT denied.example:443 HTTP/1.1\r\nHost: denied.example:443\r\n\r\n', true)
    await until(() => c.ended(), 'the refusal')
    expect(c.text()).toMatch(/^HTTP\/1.1 403/)
    const clientPort = c.socket.localPort!
    expect(proxyHolds(p, clientPort)).toBe(true) // half-closed: the client's end is open
    c.socket.end()
    // No timer needed: the proxy sees the client's end of file and closes its socket.
    await until(() => !proxyHolds(p, clientPort), "the proxy's socket to close", 1_000)
  })

  it("never counts the gate's time: a CONNECT waiting for an approver outlives the deadline and then relays", async () => {
    let answer!: (a: NetworkAnswer) => void
    const p = await proxy({ ask: () => new Promise<NetworkAnswer>((r) => (answer = r)) })
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const c = await client(p, `CONNECT asked.test:${port} HTTP/1.1\r\nHost: asked.test:${port}\r\n\r\n`)
    await until(() => answer !== undefined, 'the approver to be asked')
    vi.advanceTimersByTime(REQUEST_DEADLINE_MS * 3)
    await settle()
    expect(c.closed()).toBe(false)
    answer('approved')
    await until(() => c.text().includes('\r\n\r\n'), 'the CONNECT reply')
    expect(c.text()).toMatch(/^HTTP\/1.1 200/)
    c.socket.write(`GET /through HTTP/1.0\r\nHost: asked.test\r\n\r\n`)
    await until(() => c.closed(), 'the answer through the tunnel')
    expect(c.text()).toContain('origin /through')
  })

  it("never counts the gate's time for SOCKS5 either: a request waiting for an approver outlives the deadline", async () => {
    let answer!: (a: NetworkAnswer) => void
    const p = await proxy({ ask: () => new Promise<NetworkAnswer>((r) => (answer = r)) })
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const name = Buffer.from('socks.test')
    const request = Buffer.concat([Buffer.from([5, 1, 0, 5, 1, 0, 3, name.length]), name, Buffer.from([port >> 8, port & 0xff])])
    const c = await client(p, request) // the greeting and the request in one write
    await until(() => answer !== undefined, 'the approver to be asked')
    vi.advanceTimersByTime(REQUEST_DEADLINE_MS * 3)
    await settle()
    expect(c.closed()).toBe(false)
    answer('approved')
    await until(() => c.text().length >= 12, 'the SOCKS5 reply') // [5, 0] to the greeting, then the 10-byte reply
    expect([...Buffer.from(c.text(), 'latin1').subarray(2, 4)]).toEqual([5, 0])
  })

  it('a kept-alive plain HTTP connection waits for its next request under the same deadline', async () => {
    const p = await proxy()
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const get = (path: string) => `GET http://origin.test:${port}${path} HTTP/1.1\r\nHost: origin.test:${port}\r\n\r\n`
    const c = await client(p, get('/one'))
    await until(() => c.text().includes('origin /one'), 'the first answer')
    vi.advanceTimersByTime(REQUEST_DEADLINE_MS - 1)
    c.socket.write(get('/two')) // in time: answered on the same connection
    await until(() => c.text().includes('origin /two'), 'the second answer')
    expect(c.closed()).toBe(false)
    vi.advanceTimersByTime(REQUEST_DEADLINE_MS)
    // Within a second of real time: Node's own keep-alive timeout (5 s of real time) is not what closes it.
    await until(() => c.closed(), 'the idle connection to be dropped', 1_000)
  })

  it('a CONNECT pipelined behind a GET is a tunnel: the GET\'s answer does not start the wait again', async () => {
    const p = await proxy()
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const get = `GET http://origin.test:${port}/first HTTP/1.1\r\nHost: origin.test:${port}\r\n\r\n`
    const connectLine = `CONNECT origin.test:${port} HTTP/1.1\r\nHost: origin.test:${port}\r\n\r\n`
    const c = await client(p, get + connectLine)
    await until(() => c.text().includes('origin /first') && c.text().includes('200 Connection Established'), 'the answer and the tunnel')
    // The tunnel waits for the client's first bytes (still in Node, not yet handed to the native relay).
    vi.advanceTimersByTime(REQUEST_DEADLINE_MS * 2)
    await settle()
    expect(c.closed()).toBe(false)
    c.socket.write(`GET /through HTTP/1.0\r\nHost: origin.test\r\n\r\n`)
    await until(() => c.closed(), 'the answer through the tunnel')
    expect(c.text()).toContain('origin /through')
  })
})
