/**
 * The addon's tunnel relay (native/linux/relay.c) on its own: two real
 * connections handed to binding.relay() as the proxy hands them, the test's
 * own client and server at their far ends. Bytes intact both ways, the
 * prefixes first, end follows end, resets, a unix-socket client, the
 * record, one relay thread for many tunnels, the tunnel bound, and no
 * descriptor left behind.
 */
import { createHash, randomBytes } from 'node:crypto'
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { loadNative } from '../../src/native/load.js'
import { openFdCount, threadsNamed } from '../helpers/processes.js'
import { describeWhere, unless } from '../helpers/requirements.js'
import { removeTempDirs, tempDir } from '../helpers/temp.js'

afterAll(() => removeTempDirs())

const EMPTY = Buffer.alloc(0)
const fdOf = (s: Socket) => (s as unknown as { _handle: { fd: number } })._handle.fd
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex')

interface Record {
  toUpstream: number
  toClient: number
  errno: number
}

function listen(server: Server, where: { path: string } | { port: 0; host: string }): Promise<void> {
  return new Promise((r) => server.listen(where, r))
}

/** A connected pair: `outer` connected to `inner` (accepted), both half-open capable. */
async function pair(kind: 'tcp' | 'unix'): Promise<{ outer: Socket; inner: Socket }> {
  const server = createServer({ allowHalfOpen: true })
  const where = kind === 'tcp' ? ({ port: 0, host: '127.0.0.1' } as const) : { path: join(tempDir('relay-'), 's') }
  await listen(server, where)
  const accepted = new Promise<Socket>((r) => server.once('connection', r))
  const outer = connect({ ...(kind === 'tcp' ? { port: (server.address() as AddressInfo).port, host: '127.0.0.1' } : where), allowHalfOpen: true })
  const inner = await accepted
  await new Promise((r) => (outer.connecting ? outer.once('connect', r) : r(null)))
  server.close()
  return { outer, inner }
}

/** The record and end of file of a notification pipe. */
function watch(binding: ReturnType<typeof loadNative>['binding'], fd: number): Promise<Record> {
  const chunks: Buffer[] = []
  return new Promise((resolve) => {
    new binding.FdReader(fd, (c) => {
      if (c) return void chunks.push(c)
      const b = Buffer.concat(chunks)
      resolve({ toUpstream: Number(b.readBigUInt64LE(0)), toClient: Number(b.readBigUInt64LE(8)), errno: b.readUInt32LE(16) })
    })
  })
}

/** client ⇄ [relay] ⇄ server: the proxy's two sockets handed over and destroyed, as tunnel.ts does. */
async function tunnel(kind: 'tcp' | 'unix' = 'tcp', toUpstream = EMPTY, toClient = EMPTY) {
  const { binding } = loadNative()
  const front = await pair(kind)
  const back = await pair('tcp')
  const fd = binding.relay!(fdOf(front.inner), fdOf(back.outer), toUpstream, toClient)
  front.inner.destroy()
  back.outer.destroy()
  return { client: front.outer, server: back.inner, done: watch(binding, fd), fd }
}

/** Everything a socket reads until its end (or close). */
function readAll(s: Socket): Promise<Buffer> {
  const chunks: Buffer[] = []
  return new Promise((resolve) => {
    s.on('data', (c: Buffer) => chunks.push(c))
    s.once('end', () => resolve(Buffer.concat(chunks)))
    s.once('close', () => resolve(Buffer.concat(chunks)))
  })
}

const closed = (s: Socket) => new Promise<Error | undefined>((r) => (s.destroyed ? r(undefined) : (s.once('error', (e) => r(e)), s.once('close', () => r(undefined)))))

const relayThreads = () => threadsNamed('cordon-relay')
const openFds = openFdCount

describeWhere(unless(process.platform === 'linux', 'the native relay is Linux-only (splice, epoll)'), 'binding.relay', () => {
  it('refuses bad arguments: a TypeError, EBADF, ENOTSOCK for a pipe, EMSGSIZE for a prefix over 1 MiB; nothing is taken', async () => {
    const { binding } = loadNative()
    const [r, w] = binding.pipe()
    const { outer, inner } = await pair('tcp')
    expect(() => binding.relay!(r, fdOf(inner), EMPTY, EMPTY)).toThrow(expect.objectContaining({ code: 'ENOTSOCK' }))
    for (const fd of [r, w]) binding.close(fd)
    outer.destroy()
    inner.destroy()
    expect(() => (binding.relay as unknown as (...a: unknown[]) => number)(1, 2, 'x', EMPTY)).toThrow(TypeError)
    expect(() => binding.relay!(-1, 5, EMPTY, EMPTY)).toThrow(expect.objectContaining({ code: 'EBADF' }))
    expect(() => binding.relay!(7, 8, Buffer.alloc(1024 * 1024 + 1), EMPTY)).toThrow(expect.objectContaining({ code: 'EMSGSIZE' }))
  })

  it('moves 16 MiB each way at once, intact (sha256), and the record counts them', async () => {
    const t = await tunnel()
    const up = randomBytes(16 << 20)
    const down = randomBytes(16 << 20)
    const atServer = readAll(t.server)
    const atClient = readAll(t.client)
    t.client.end(up)
    t.server.end(down)
    expect(sha(await atServer)).toBe(sha(up))
    expect(sha(await atClient)).toBe(sha(down))
    expect(await t.done).toEqual({ toUpstream: up.length, toClient: down.length, errno: 0 })
  })

  it('sends each prefix before anything read from the other side, in order', async () => {
    const t = await tunnel('tcp', Buffer.from('held-'), Buffer.from('buffered-'))
    const atServer = readAll(t.server)
    const atClient = readAll(t.client)
    t.client.end('after')
    t.server.end('reply')
    expect((await atServer).toString()).toBe('held-after')
    expect((await atClient).toString()).toBe('buffered-reply')
  })

  it('end follows end: the client ends its side, the server still answers, then both are closed', async () => {
    const t = await tunnel()
    const atClient = readAll(t.client)
    t.client.end('question')
    const question = await readAll(t.server)
    expect(question.toString()).toBe('question')
    t.server.end('answer after the client ended')
    expect((await atClient).toString()).toBe('answer after the client ended')
    expect((await t.done).errno).toBe(0)
  })

  for (const side of ['client', 'server'] as const) {
    it(`a reset by the ${side} resets the other side and ends the tunnel with ECONNRESET`, async () => {
      const t = await tunnel()
      const other = side === 'client' ? t.server : t.client
      const otherClosed = closed(other)
      t[side].write('x')
      await new Promise((r) => setTimeout(r, 20))
      t[side].resetAndDestroy()
      expect(await otherClosed).toMatchObject({ code: 'ECONNRESET' })
      expect((await t.done).errno).toBe(104) // ECONNRESET
    })
  }

  it('relays a unix-socket client (namespace mode reaches the proxy over one) like a TCP one', async () => {
    const t = await tunnel('unix', Buffer.from('>'))
    const payload = randomBytes(4 << 20)
    const atServer = readAll(t.server)
    const atClient = readAll(t.client)
    t.client.end(payload)
    expect(sha(await atServer)).toBe(sha(Buffer.concat([Buffer.from('>'), payload])))
    t.server.end('done')
    expect((await atClient).toString()).toBe('done')
    expect(await t.done).toEqual({ toUpstream: payload.length + 1, toClient: 4, errno: 0 })
  })

  it('closing the notification pipe cuts the tunnel: both sides are reset', async () => {
    const { binding } = loadNative()
    const front = await pair('tcp')
    const back = await pair('tcp')
    const fd = binding.relay!(fdOf(front.inner), fdOf(back.outer), EMPTY, EMPTY)
    front.inner.destroy()
    back.outer.destroy()
    const ends = [closed(front.outer), closed(back.inner)]
    binding.close(fd)
    for (const e of await Promise.all(ends)) expect(e).toMatchObject({ code: 'ECONNRESET' })
  })

  it('200 tunnels at once on one relay thread, all answered; no descriptor left once they end', async () => {
    const warm = await tunnel() // the thread and its epoll set exist before counting
    warm.client.end()
    warm.server.end()
    await warm.done
    const before = openFds()
    const ts = await Promise.all(Array.from({ length: 200 }, () => tunnel()))
    expect(relayThreads()).toBe(1)
    const answers = ts.map((t, i) => {
      t.server.on('data', () => t.server.end(`answer ${i}`))
      const got = readAll(t.client)
      t.client.end(`question ${i}`)
      return got
    })
    expect((await Promise.all(answers)).map(String)).toEqual(ts.map((_, i) => `answer ${i}`))
    expect((await Promise.all(ts.map((t) => t.done))).every((r) => r.errno === 0)).toBe(true)
    await Promise.all(ts.flatMap((t) => [closed(t.client), closed(t.server)]))
    await new Promise((r) => setTimeout(r, 50))
    expect(openFds()).toBe(before)
  })

  it('refuses the tunnel past its bound (1024) with EAGAIN, and takes tunnels again once they end', async () => {
    const { binding } = loadNative()
    const front = await pair('tcp')
    const back = await pair('tcp')
    // 1024 idle tunnels over duplicates of one pair of connections.
    const dones = Array.from({ length: 1024 }, () => watch(binding, binding.relay!(fdOf(front.inner), fdOf(back.outer), EMPTY, EMPTY)))
    expect(() => binding.relay!(fdOf(front.inner), fdOf(back.outer), EMPTY, EMPTY)).toThrow(expect.objectContaining({ code: 'EAGAIN' }))
    front.outer.end()
    back.inner.end() // end of file both ways: every tunnel ends cleanly
    expect((await Promise.all(dones)).every((r) => r.errno === 0)).toBe(true)
    front.inner.destroy()
    back.outer.destroy()
    const t = await tunnel()
    t.client.end()
    t.server.end()
    expect((await t.done).errno).toBe(0)
  }, 60_000)
})
