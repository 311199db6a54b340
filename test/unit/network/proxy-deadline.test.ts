/**
 * The proxy's request deadline (src/network/proxy/deadline.ts): a client
 * that does not finish saying what it wants within REQUEST_DEADLINE_MS is
 * dropped — it would otherwise hold a connection slot and a descriptor of
 * the caller until its sandbox closes — while the time the gate takes (an
 * approver) and the time an answer is relayed are never counted.
 * The deadline's timers are faked; the sockets are real.
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http'
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
}

function client(p: NetworkProxy, first: string | Buffer): Promise<Client> {
  return new Promise((resolve, reject) => {
    let text = ''
    let closed = false
    const socket = connect(p.port, '127.0.0.1', () => {
      if (first.length) socket.write(first)
      resolve({ socket, text: () => text, closed: () => closed })
    })
    socket.on('data', (d) => (text += d.toString('latin1')))
    socket.on('close', () => (closed = true))
    socket.once('error', reject)
  })
}

/** Real event-loop turns until `done` holds (socket events are not faked). */
async function until(done: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 5_000
  while (!done()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setImmediate(r))
  }
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
    await until(() => clients.every((c) => c.closed()), 'the proxy to drop them')
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
    await until(() => c.closed(), 'the idle connection to be dropped')
  })
})
