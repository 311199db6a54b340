/**
 * The forwarder's relay (native/linux/forwarder-serve.c), end to end through
 * the real launcher, under the forwarder's own Landlock domain and seccomp
 * filter: the test is the client on 127.0.0.1:PORT and, in place of the
 * proxy, the server on the unix socket, so every byte is compared (SHA-256)
 * on both ends. What it proves: large transfers both ways arrive whole;
 * end follows end (a client that shuts its write side still gets the
 * answer); a reset on either side ends that pair with a reset and nothing
 * else; 200 connections at once; a low RLIMIT_NOFILE costs pipes (the pairs
 * beyond copy through buffers) and refuses, with a reset, only what does
 * not fit. Reading the forwarder's descriptors (/proc, root only: it is not
 * dumpable) shows the pipes.
 */
import { createHash, randomBytes } from 'node:crypto'
import { connect, createServer, type Server, type Socket } from 'node:net'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { forwarderFds, startForwarder, type RunningForwarder } from '../helpers/forwarder.js'
import { eventually } from '../helpers/processes.js'
import { itWhere, unless } from '../helpers/requirements.js'
import { removeTempDirs, tempDir } from '../helpers/temp.js'

const MiB = 1024 * 1024
const asRoot = unless(process.getuid?.() === 0, "the forwarder's descriptors (/proc/PID/fd of a process that is not dumpable) are readable only by root: run the tests as root")
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex')

let server: Server
let socketPath: string
/** How the server treats its next connections, in order; echo when none is queued. */
const handlers: ((s: Socket) => void)[] = []
/** Server-side sockets, in order of arrival. */
const arrived: Socket[] = []

/** Echo: what comes in goes back; the end of the input ends the output (allowHalfOpen). */
const echo = (s: Socket) => s.pipe(s)

beforeAll(async () => {
  socketPath = join(tempDir('fwd-splice-'), 'proxy.sock')
  server = createServer({ allowHalfOpen: true, pauseOnConnect: true }, (s) => {
    s.on('error', () => {})
    arrived.push(s)
    ;(handlers.shift() ?? echo)(s)
  })
  await new Promise<void>((r) => server.listen(socketPath, r))
})
afterAll(async () => {
  await new Promise((r) => server.close(r))
  removeTempDirs()
})

let fwd: RunningForwarder | undefined
afterEach(async () => {
  await fwd?.stop()
  fwd = undefined
  for (const s of arrived.splice(0)) s.destroy()
  handlers.length = 0
})

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1')
    s.once('connect', () => resolve(s)).once('error', reject)
  })
}

/** Everything the socket receives until its end; rejects with the error (ECONNRESET…) instead if one comes first. */
function received(s: Socket): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    s.on('data', (d: Buffer) => chunks.push(d))
    s.once('end', () => resolve(Buffer.concat(chunks)))
    s.once('error', reject)
  })
}

/** Send `payload`, shut the write side, and collect the answer. */
async function exchange(port: number, payload: Buffer): Promise<Buffer> {
  const s = await open(port)
  const answer = received(s)
  s.end(payload)
  return answer
}

/** One round trip on an open echo connection: 'OK', or the error code it failed with. */
function ping(s: Socket): Promise<string> {
  return new Promise((resolve) => {
    s.once('data', () => resolve('OK'))
    s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'ERR'))
    s.write('ping')
  })
}

/** The outcome of a connection: 'OK' once it echoed, or the error code; the socket to keep. */
async function tryConnection(port: number): Promise<{ result: string; s: Socket }> {
  const s = connect(port, '127.0.0.1')
  const result = await new Promise<string>((resolve) => {
    s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'ERR'))
    s.once('connect', () => void ping(s).then(resolve))
  })
  return { result, s }
}

describe('launcher: the forwarder relays by splice', () => {
  it('32 MiB each way at once arrive whole (an echo, compared by SHA-256)', async () => {
    fwd = await startForwarder(socketPath)
    const payload = randomBytes(32 * MiB)
    const back = await exchange(fwd.port, payload)
    expect(back.length).toBe(payload.length)
    expect(sha(back)).toBe(sha(payload))
  })

  it('end follows end: a client that shut its write side still gets the whole answer (20 MiB up, 20 MiB back after the EOF)', async () => {
    fwd = await startForwarder(socketPath)
    let sawEndFirst = false
    handlers.push((s) => {
      const chunks: Buffer[] = []
      s.on('data', (d: Buffer) => chunks.push(d))
      // The server answers only once the client's EOF came through the forwarder.
      s.on('end', () => {
        sawEndFirst = true
        s.end(Buffer.concat(chunks).reverse())
      })
      s.resume()
    })
    const payload = randomBytes(20 * MiB)
    const back = await exchange(fwd.port, payload)
    expect(sawEndFirst).toBe(true)
    expect(sha(back)).toBe(sha(Buffer.from(payload).reverse()))
  })

  it('a client that resets mid-download ends its pair (the server sees the close), and another connection goes on', async () => {
    fwd = await startForwarder(socketPath)
    const other = await open(fwd.port)
    expect(await ping(other)).toBe('OK')
    const chunk = randomBytes(MiB)
    handlers.push((s) => {
      const more = () => {
        while (s.write(chunk));
      }
      s.on('drain', more)
      more()
    })
    const victim = await open(fwd.port)
    await eventually(() => arrived.length === 2)
    const serverSide = arrived[1]!
    const serverClosed = new Promise<void>((r) => serverSide.once('close', () => r()))
    let got = 0
    await new Promise<void>((r) => victim.on('data', (d: Buffer) => (got += d.length) >= 4 * MiB && r()))
    victim.resetAndDestroy()
    await serverClosed
    expect(got).toBeGreaterThanOrEqual(4 * MiB)
    expect(await ping(other)).toBe('OK')
    const payload = randomBytes(4 * MiB)
    expect(sha(await exchange(fwd.port, payload))).toBe(sha(payload))
    other.destroy()
  })

  it('a server that dies mid-transfer (its socket reset) resets the client: a cut download never ends like a complete one', async () => {
    fwd = await startForwarder(socketPath)
    handlers.push((s) => {
      // Sends 2 MiB and dies without reading what the client sent: unread
      // data makes the close a reset for the forwarder (ECONNRESET, unix(7)).
      s.write(randomBytes(2 * MiB), () => setTimeout(() => s.destroy(), 50))
    })
    const s = await open(fwd.port)
    s.write(randomBytes(64 * 1024))
    let ended = false
    s.on('end', () => (ended = true))
    const outcome = await received(s).then(
      () => 'end',
      (e: NodeJS.ErrnoException) => e.code,
    )
    expect(outcome).toBe('ECONNRESET')
    expect(ended).toBe(false)
  })

  it('200 connections at once, 256 KiB each way, all arrive whole', async () => {
    fwd = await startForwarder(socketPath)
    const port = fwd.port
    const payloads = Array.from({ length: 200 }, () => randomBytes(256 * 1024))
    const backs = await Promise.all(payloads.map((p) => exchange(port, p)))
    expect(backs.map(sha)).toEqual(payloads.map(sha))
  })

  it('520 connections held open at once: the 512 the forwarder bounds itself to are served, the 8 beyond are reset', async () => {
    fwd = await startForwarder(socketPath)
    const port = fwd.port
    const tries = await Promise.all(Array.from({ length: 520 }, () => tryConnection(port)))
    const results = tries.map((t) => t.result)
    expect(results.filter((r) => r === 'OK')).toHaveLength(512)
    expect(results.filter((r) => r !== 'OK').every((r) => r === 'ECONNRESET' || r === 'EPIPE')).toBe(true)
    for (const t of tries) t.s.destroy()
  })

  itWhere(asRoot, 'each open connection holds two pipes (four ends), released when it closes', async () => {
    fwd = await startForwarder(socketPath)
    const conns = await Promise.all([1, 2, 3].map(() => open(fwd!.port)))
    for (const c of conns) expect(await ping(c)).toBe('OK')
    // The listener and its spare duplicate, and two sockets per connection.
    expect(forwarderFds(fwd.launcher.pid!)).toEqual({ pipes: 12, sockets: 2 + 6 })
    for (const c of conns) c.destroy()
    expect(await eventually(() => forwarderFds(fwd!.launcher.pid!).pipes === 0)).toBe(true)
  })
})

/** `nofile` as a launcher plan's rlimits. */
const nofile = (n: number) => [{ resource: 'nofile', soft: String(n), hard: String(n) }]

/** Open `count` connections one after the other (each echoes once before the next): their outcomes, in order. */
async function openInTurn(port: number, count: number): Promise<{ result: string; s: Socket }[]> {
  const tries = []
  for (let i = 0; i < count; i++) tries.push(await tryConnection(port))
  return tries
}

/** Send a payload each way on every socket at once; true when every echo came back whole. */
async function allEchoWhole(socks: Socket[], bytes: number): Promise<boolean> {
  const payloads = socks.map(() => randomBytes(bytes))
  const backs = await Promise.all(
    socks.map((s, i) => {
      const answer = received(s)
      s.end(payloads[i]!)
      return answer
    }),
  )
  return backs.every((b, i) => sha(b) === sha(payloads[i]!))
}

describe('launcher: the forwarder under a low RLIMIT_NOFILE', () => {
  // The listener, the epoll set and the spare take 3 descriptors; each
  // connection takes 2 sockets, so (N − 3) / 2 connections fit: 14 with
  // N = 32, 15 with N = 33. Pipes never take a connection's place: the
  // first connections get them, later ones take them back from idle pairs.
  // One more connection is reset at once: with N = 32 one descriptor is
  // left, to accept on, and the proxy's socket finds none; with N = 33 none
  // is, and the spare makes room to accept and reset it.
  for (const [n, fits] of [[32, 14], [33, 15]] as const) {
    it(`N = ${n}: ${fits} connections served, as many as without pipes; the next ones reset; all move 4 MiB each way whole; served again once they close`, async () => {
      fwd = await startForwarder(socketPath, nofile(n))
      const tries = await openInTurn(fwd.port, fits + 2)
      expect(tries.map((t) => t.result)).toEqual([...Array(fits).fill('OK'), 'ECONNRESET', 'ECONNRESET'])
      expect(await allEchoWhole(tries.slice(0, fits).map((t) => t.s), 4 * MiB)).toBe(true)
      for (const t of tries) t.s.destroy()
      // Closed pairs give their descriptors back.
      expect(await eventually(() => arrived.every((s) => s.closed))).toBe(true)
      const again = await tryConnection(fwd.port)
      expect(again.result).toBe('OK')
      again.s.destroy()
    })
  }

  it('N = 32, 40 connections at once: 14 served, the other 26 reset, none left waiting', async () => {
    fwd = await startForwarder(socketPath, nofile(32))
    const port = fwd.port
    const tries = await Promise.all(Array.from({ length: 40 }, () => tryConnection(port)))
    const results = tries.map((t) => t.result)
    expect(results.filter((r) => r === 'OK')).toHaveLength(14)
    expect(results.filter((r) => r !== 'OK').every((r) => r === 'ECONNRESET' || r === 'EPIPE')).toBe(true)
    expect(await allEchoWhole(tries.filter((t) => t.result === 'OK').map((t) => t.s), MiB)).toBe(true)
    for (const t of tries) t.s.destroy()
  })

  it('N = 32: the first connections splice (spliced and copying pairs move 4 MiB each way whole together)', async () => {
    fwd = await startForwarder(socketPath, nofile(32))
    // 3 + 2 per pair + 4 pipe ends: pairs 1–4 spliced, pair 5 one way (its other copies).
    const tries = await openInTurn(fwd.port, 5)
    expect(tries.every((t) => t.result === 'OK')).toBe(true)
    expect(await allEchoWhole(tries.map((t) => t.s), 4 * MiB)).toBe(true)
  })

  itWhere(asRoot, 'N = 32: pipes go to the first connections and come back from idle ones as more connect', async () => {
    fwd = await startForwarder(socketPath, nofile(32))
    const tries = await openInTurn(fwd.port, 5)
    expect(forwarderFds(fwd.launcher.pid!)).toEqual({ pipes: 18, sockets: 2 + 10 })
    tries.push(...(await openInTurn(fwd.port, 9)))
    expect(tries.every((t) => t.result === 'OK')).toBe(true)
    expect(forwarderFds(fwd.launcher.pid!)).toEqual({ pipes: 0, sockets: 2 + 28 })
    for (const t of tries) t.s.destroy()
    expect(await eventually(() => forwarderFds(fwd!.launcher.pid!).sockets === 2)).toBe(true)
    // Free again: a new connection gets its pipes.
    const again = await tryConnection(fwd.port)
    expect(again.result).toBe('OK')
    expect(forwarderFds(fwd.launcher.pid!).pipes).toBe(4)
    again.s.destroy()
  })
})
