/**
 * What a CONNECT tunnel through the proxy must do, whichever relay carries
 * it: tunnel-relay.test.ts runs these with the addon's native relay,
 * tunnel-fallback.test.ts with the addon unusable (the JavaScript relay).
 * Servers on 127.0.0.2, reached by name through the proxy's `lookup`.
 */
import { createHash, randomBytes } from 'node:crypto'
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { buildNetworkLists } from '../../../src/network/policy.js'
import { startNetworkProxy, type NetworkProxy } from '../../../src/network/proxy/proxy.js'
import { openFdCount, threadsNamed } from '../../helpers/processes.js'
import { removeTempDirs, tempDir } from '../../helpers/temp.js'

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex')

/** Threads of this process that are the addon's relay thread (native/linux/relay.c names it). */
export const relayThreads = () => threadsNamed('cordon-relay')
const openFds = openFdCount

/** Everything a socket reads until its end (or close), as one Buffer. */
function readAll(s: Socket, first: Buffer = Buffer.alloc(0)): Promise<Buffer> {
  const chunks: Buffer[] = [first]
  return new Promise((resolve) => {
    s.on('data', (c: Buffer) => chunks.push(c))
    s.once('end', () => resolve(Buffer.concat(chunks)))
    s.once('close', () => resolve(Buffer.concat(chunks)))
  })
}

const closed = (s: Socket) => new Promise<void>((r) => (s.destroyed ? r() : s.once('close', () => r())))
/** The connection is over for `s`: its peer ended or reset it (the native relay resets, the JS relay ends). */
const cutOff = (s: Socket) => new Promise<void>((r) => (s.destroyed || s.readableEnded ? r() : (s.once('end', () => r()), s.once('close', () => r()))))

function serve(onConnection: (s: Socket) => void): Promise<{ server: Server; port: number }> {
  const server = createServer({ allowHalfOpen: true }, onConnection)
  return new Promise((r) => server.listen(0, '127.0.0.2', () => r({ server, port: (server.address() as AddressInfo).port })))
}

/**
 * A CONNECT through the proxy (its TCP port, or its unix socket): the open
 * socket after "200", and any tunnel bytes that came with the reply.
 */
function connectVia(p: NetworkProxy, port: number, via: 'tcp' | 'unix'): Promise<{ socket: Socket; rest: Buffer }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ ...(via === 'tcp' ? { port: p.port, host: '127.0.0.1' } : { path: p.socketPath! }), allowHalfOpen: true })
    socket.once('connect', () => socket.write(`CONNECT origin.test:${port} HTTP/1.1\r\nHost: origin.test:${port}\r\n\r\n`))
    socket.once('error', reject)
    let got = Buffer.alloc(0)
    const onData = (c: Buffer) => {
      got = Buffer.concat([got, c])
      const end = got.indexOf('\r\n\r\n')
      if (end < 0) return
      socket.off('data', onData)
      socket.pause()
      if (!got.subarray(0, end).toString().startsWith('HTTP/1.1 200')) return reject(new Error(got.toString()))
      resolve({ socket, rest: got.subarray(end + 4) })
    }
    socket.on('data', onData)
  })
}

/** The cases, for a test file that has set up (or broken) the addon as it needs. */
export function tunnelCases(): void {
  let proxy: NetworkProxy
  let echo: { server: Server; port: number }
  const servers: Server[] = []
  beforeAll(async () => {
    echo = await serve((s) => s.on('error', () => {}).pipe(s))
    servers.push(echo.server)
    proxy = await startNetworkProxy({
      lists: buildNetworkLists({ allow: ['origin.test', '127.0.0.2'] }),
      lookup: (host, _o, cb) => (host === 'origin.test' ? cb(null, [{ address: '127.0.0.2', family: 4 }]) : cb(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' }), [])),
      socketPath: join(tempDir('tunnel-'), 'proxy.sock'),
    })
  })
  afterAll(async () => {
    await proxy.close()
    for (const s of servers) s.close()
    removeTempDirs()
  })

  for (const via of ['tcp', 'unix'] as const) {
    it(`${via} client: 8 MiB echoed back intact (sha256); the echo's tail arrives after the client ended its side`, async () => {
      const { socket, rest } = await connectVia(proxy, echo.port, via)
      const payload = randomBytes(8 << 20)
      const back = readAll(socket, rest)
      socket.resume()
      socket.end(payload)
      expect(sha(await back)).toBe(sha(payload))
    })

    it(`${via} client: a server that speaks first (a banner before the client's first byte) works`, async () => {
      const banner = await serve((s) => {
        s.write('BANNER hello\r\n')
        s.once('data', (d) => s.end(`you said ${d.toString()}; ${'x'.repeat(200_000)}`))
      })
      servers.push(banner.server)
      const { socket, rest } = await connectVia(proxy, banner.port, via)
      let got = rest
      socket.on('data', (c: Buffer) => (got = Buffer.concat([got, c])))
      socket.resume()
      while (!got.toString().includes('\r\n')) await new Promise((r) => setTimeout(r, 5))
      expect(got.toString()).toBe('BANNER hello\r\n')
      const all = readAll(socket, got)
      socket.end('HELLO')
      expect((await all).toString()).toBe(`BANNER hello\r\nyou said HELLO; ${'x'.repeat(200_000)}`)
    })
  }

  for (const side of ['client', 'server'] as const) {
    it(`a reset by the ${side} cuts the other side off`, async () => {
      let server!: Socket
      const held = await serve((s) => {
        server = s
        s.on('error', () => {}).resume()
        s.write('ready')
      })
      servers.push(held.server)
      const { socket } = await connectVia(proxy, held.port, 'tcp')
      socket.on('error', () => {})
      socket.resume()
      socket.write('go') // the first bytes: judged, and the tunnel hands over where it can
      while (!server) await new Promise((r) => setTimeout(r, 5))
      await new Promise((r) => setTimeout(r, 50))
      const [resetting, other] = side === 'client' ? [socket, server] : [server, socket]
      const otherCut = cutOff(other)
      resetting.resetAndDestroy()
      await otherCut
      expect(other.destroyed || other.readableEnded).toBe(true)
    })
  }

  it('200 tunnels at once, all answered, and no descriptor is left once they end', async () => {
    const warm = await connectVia(proxy, echo.port, 'tcp')
    warm.socket.resume()
    warm.socket.end('warm')
    await closed(warm.socket)
    await new Promise((r) => setTimeout(r, 50))
    const before = openFds()
    const answers = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const { socket, rest } = await connectVia(proxy, echo.port, i % 2 ? 'tcp' : 'unix')
        const back = readAll(socket, rest)
        socket.resume()
        socket.end(`tunnel ${i}`)
        const text = (await back).toString()
        await closed(socket)
        return text
      }),
    )
    expect(answers).toEqual(answers.map((_, i) => `tunnel ${i}`))
    await new Promise((r) => setTimeout(r, 100))
    expect(openFds()).toBe(before)
  })

  it("the proxy's close() cuts an open tunnel", async () => {
    const { socket } = await connectVia(proxy, echo.port, 'tcp')
    socket.on('error', () => {})
    socket.resume()
    const echoed = new Promise((r) => socket.once('data', r))
    socket.write('once')
    await echoed
    await new Promise((r) => setTimeout(r, 20)) // the hand-over (native relay) is done
    const cut = cutOff(socket)
    await proxy.close()
    await cut
    expect(socket.destroyed || socket.readableEnded).toBe(true)
  })
}
