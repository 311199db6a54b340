/**
 * The proxy against servers this test starts on loopback, reached by name
 * through the `lookup` option (registry.test → 127.0.0.2). Nothing leaves
 * the machine.
 */
import { createServer as createHttpServer, request, type Server as HttpServer } from 'node:http'
import { connect, createServer, isIP, type AddressInfo, type Server, type Socket } from 'node:net'
import { join } from 'node:path'
import { connect as tlsConnect } from 'node:tls'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { removeTempDirs, tempDir } from '../../helpers/temp.js'
import { buildNetworkLists } from '../../../src/network/policy.js'
import { MAX_PROXY_CONNECTIONS, startNetworkProxy, type GateOptions, type LookupFunction, type NetworkAnswer, type NetworkAsk, type NetworkProxy } from '../../../src/network/proxy/proxy.js'

const NAMES: Record<string, string> = {
  'registry.test': '127.0.0.2',
  'mirror.test': '127.0.0.2',
  'asked.test': '127.0.0.2',
  'rebind.test': '127.0.0.1',
  'inside.test': '10.0.0.1',
  'metadata.test': '169.254.169.254',
  // IPv6 answers: loopback, unique-local, link-local, and IPv4 addresses written as IPv6.
  'v6loop.test': '::1',
  'v6ula.test': 'fd00::5',
  'v6link.test': 'fe80::1',
  'v6meta.test': '::ffff:169.254.169.254',
  'v6mappedloop.test': '::ffff:127.0.0.1',
}
const lookup: LookupFunction = (host, _o, cb) => {
  const a = NAMES[host]
  if (!a) return cb(Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), [])
  cb(null, [{ address: a, family: isIP(a) }])
}

let registry: HttpServer
let echo: Server
let port = 0
let echoPort = 0
const proxies: NetworkProxy[] = []

beforeAll(async () => {
  registry = createHttpServer((req, res) => res.end(`registry ${req.method} ${req.url} host=${req.headers.host}`))
  await new Promise<void>((r) => registry.listen(0, '127.0.0.2', r))
  port = (registry.address() as AddressInfo).port
  echo = createServer((s) => s.pipe(s))
  await new Promise<void>((r) => echo.listen(0, '127.0.0.2', r))
  echoPort = (echo.address() as AddressInfo).port
})
afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()))
  registry.close()
  echo.close()
  removeTempDirs()
})

async function proxy(lists: { allow: string[]; deny?: string[] }, extra: Partial<GateOptions> & { token?: string; socketPath?: string } = {}): Promise<NetworkProxy> {
  const p = await startNetworkProxy({ lists: buildNetworkLists(lists), lookup, ...extra })
  proxies.push(p)
  return p
}

const ALLOW = { allow: ['registry.test', '127.0.0.2', 'rebind.test', 'inside.test', 'metadata.test'], deny: ['mirror.test'] }

function plainGet(p: NetworkProxy, url: string, host?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: p.port, path: url, headers: { host: host ?? new URL(url).host }, agent: false }, (res) => {
      let body = ''
      res.on('data', (c) => (body += c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

/** CONNECT, then the status line and the socket (still open on 200). */
function connectVia(p: NetworkProxy, target: string, host = target, extra = '', via: { port: number } | { path: string } = { port: p.port }): Promise<{ status: number; text: string; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const s = connect({ ...via, ...('port' in via ? { host: '127.0.0.1' } : {}) }, () => s.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${host}\r\n${extra}\r\n`))
    let text = ''
    s.on('error', reject)
    const onData = (c: Buffer) => {
      text += c.toString('latin1')
      if (!text.includes('\r\n\r\n')) return
      s.off('data', onData)
      const status = Number(text.split(' ')[1])
      if (status !== 200) s.on('data', (d) => (text += d.toString('latin1'))).on('close', () => resolve({ status, text, socket: s }))
      else resolve({ status, text, socket: s })
    }
    s.on('data', onData)
  })
}

function roundTrip(s: Socket, data: string): Promise<string> {
  return new Promise((resolve) => {
    s.once('data', (d) => resolve(d.toString()))
    s.write(data)
  })
}

describe('network proxy: HTTP', () => {
  it('an allowed name, reached by its name through the lookup option, answers a plain HTTP request', async () => {
    const p = await proxy(ALLOW)
    const r = await plainGet(p, `http://registry.test:${port}/lodash`)
    expect(r).toEqual({ status: 200, body: `registry GET /lodash host=registry.test:${port}` })
    expect(p.records).toEqual([expect.objectContaining({ host: 'registry.test', port, protocol: 'http', decision: 'allowed', source: 'profile', address: '127.0.0.2' })])
  })

  it('a CONNECT tunnel to an allowed name relays both ways', async () => {
    const p = await proxy(ALLOW)
    const c = await connectVia(p, `registry.test:${echoPort}`)
    expect(c.status).toBe(200)
    expect(await roundTrip(c.socket, 'ping')).toBe('ping')
    c.socket.destroy()
  })

  it('a denied host is refused with the rule that denies it', async () => {
    const p = await proxy(ALLOW)
    const r = await plainGet(p, `http://mirror.test:${port}/`)
    expect(r.status).toBe(403)
    expect(r.body).toMatch(/denied by 'mirror\.test'/)
    const c = await connectVia(p, `mirror.test:${echoPort}`)
    expect(c.status).toBe(403)
    expect(p.records.map((x) => x.decision)).toEqual(['denied', 'denied'])
  })

  it('a host in no list is refused as not in the allowlist when nobody can be asked', async () => {
    const p = await proxy(ALLOW)
    const c = await connectVia(p, `unlisted.test:${echoPort}`)
    expect(c.status).toBe(403)
    expect(c.text).toMatch(new RegExp(`unlisted\\.test:${echoPort} is not in the allowlist`))
  })

  it('allowed names that resolve to loopback, private or link-local (metadata) addresses are refused', async () => {
    const p = await proxy(ALLOW)
    for (const [name, what] of [['rebind.test', /127\.0\.0\.1, a loopback/], ['inside.test', /10\.0\.0\.1, a private/], ['metadata.test', /169\.254\.169\.254, a link-local \(cloud metadata\)/]] as const) {
      const c = await connectVia(p, `${name}:${echoPort}`)
      expect(c.status, name).toBe(403)
      expect(c.text, name).toMatch(what)
    }
  })

  it('IP-literal CONNECTs are refused unless an entry names the address', async () => {
    const p = await proxy(ALLOW)
    const denied = await connectVia(p, `127.0.0.1:${echoPort}`)
    expect(denied.status).toBe(403)
    expect(denied.text).toMatch(/is an IP address/)
    expect((await connectVia(p, `169.254.169.254:80`)).status).toBe(403)
    const named = await connectVia(p, `127.0.0.2:${echoPort}`)
    expect(named.status).toBe(200)
    named.socket.destroy()
  })

  it('a Host header naming another host than the target is refused (plain HTTP and CONNECT)', async () => {
    const p = await proxy(ALLOW)
    const r = await plainGet(p, `http://registry.test:${port}/`, 'mirror.test')
    expect(r.status).toBe(403)
    expect(r.body).toMatch(/does not match the request URI/)
    const c = await connectVia(p, `registry.test:${echoPort}`, 'mirror.test:443')
    expect(c.status).toBe(403)
    expect(p.records).toEqual([]) // refused before the gate: no host was asked for
  })

  it('a TLS ClientHello naming another host (SNI) closes the tunnel before the server sees it', async () => {
    const p = await proxy(ALLOW)
    const seen: Buffer[] = []
    const sink = createServer((s) => s.on('data', (d) => seen.push(d)))
    await new Promise<void>((r) => sink.listen(0, '127.0.0.2', r))
    const c = await connectVia(p, `registry.test:${(sink.address() as AddressInfo).port}`)
    expect(c.status).toBe(200)
    const err = await new Promise<Error>((resolve) => tlsConnect({ socket: c.socket, servername: 'mirror.test', rejectUnauthorized: false }).on('error', resolve))
    expect(err.message).toMatch(/socket disconnected|ECONNRESET|closed/i)
    sink.close()
    expect(seen).toEqual([])
    expect(p.records[0]).toMatchObject({ decision: 'denied', source: 'proxy', reason: expect.stringMatching(/server name "mirror\.test" does not match/) })
  })
})

describe('network proxy: SOCKS5', () => {
  /** Bytes from a socket, `n` at a time, in order. */
  function reader(s: Socket) {
    let buf = Buffer.alloc(0)
    let wake: (() => void) | undefined
    const onData = (d: Buffer) => {
      buf = Buffer.concat([buf, d])
      wake?.()
    }
    s.on('data', onData).on('close', () => wake?.())
    return {
      async take(n: number): Promise<Buffer | undefined> {
        while (buf.length < n) {
          if (s.destroyed || s.readableEnded) return undefined
          await new Promise<void>((r) => (wake = r))
        }
        const out = buf.subarray(0, n)
        buf = buf.subarray(n)
        return out
      },
      done: () => s.off('data', onData),
    }
  }

  /** The SOCKS5 address of a target: IPv4 (ATYP 1), IPv6 (ATYP 4, 16 bytes) or a name (ATYP 3). */
  function socksAddress(host: string): Buffer {
    const family = isIP(host)
    if (family === 4) return Buffer.from([1, ...host.split('.').map(Number)])
    if (family === 6) {
      const [head, tail] = host.split('::') as [string, string | undefined]
      const words = (part: string | undefined) => (part ? part.split(':').map((w) => parseInt(w, 16)) : [])
      const h = words(head)
      const t = words(tail)
      const all = tail === undefined ? h : [...h, ...Array<number>(8 - h.length - t.length).fill(0), ...t]
      return Buffer.from([4, ...all.flatMap((w) => [w >> 8, w & 0xff])])
    }
    const name = Buffer.from(host)
    return Buffer.concat([Buffer.from([3, name.length]), name])
  }

  /** Greeting, optional username/password, CONNECT to a name or an address: the reply code (0xff: no method; 0x1xx: auth failed). */
  async function socks(p: NetworkProxy, host: string, targetPort: number, auth?: { user: string; pass: string }): Promise<{ rep: number; socket: Socket }> {
    const s = connect(p.port, '127.0.0.1')
    await new Promise((r, j) => s.once('connect', r).once('error', j))
    const r = reader(s)
    s.write(Buffer.from(auth ? [5, 1, 2] : [5, 1, 0]))
    const method = await r.take(2)
    if (!method || method[1] === 0xff) return { rep: 0xff, socket: s }
    if (auth) {
      s.write(Buffer.concat([Buffer.from([1, auth.user.length]), Buffer.from(auth.user), Buffer.from([auth.pass.length]), Buffer.from(auth.pass)]))
      const status = await r.take(2)
      if (!status || status[1] !== 0) return { rep: 0x100 + (status?.[1] ?? 0xff), socket: s }
    }
    const portBytes = Buffer.alloc(2)
    portBytes.writeUInt16BE(targetPort)
    s.write(Buffer.concat([Buffer.from([5, 1, 0]), socksAddress(host), portBytes]))
    // VER REP RSV ATYP, then the bound address: 4 bytes (IPv4) or 16 (IPv6), and the port.
    const head = await r.take(4)
    const reply = head && (await r.take((head[3] === 4 ? 16 : 4) + 2)) ? head : undefined
    r.done()
    return { rep: reply ? reply[1]! : -1, socket: s }
  }

  it('with a credential: only username/password with the token is accepted', async () => {
    const p = await proxy(ALLOW, { token: 'tok-1' })
    expect((await socks(p, 'registry.test', echoPort)).rep).toBe(0xff) // no authentication offered
    expect((await socks(p, 'registry.test', echoPort, { user: 'cordon', pass: 'nope' })).rep).toBe(0x101)
    const ok = await socks(p, 'registry.test', echoPort, { user: 'cordon', pass: 'tok-1' })
    expect(ok.rep).toBe(0)
    expect(await roundTrip(ok.socket, 'auth')).toBe('auth')
    ok.socket.destroy()
  })

  it('CONNECT by name to an allowed host relays; a denied one gets "not allowed by ruleset"', async () => {
    const p = await proxy(ALLOW)
    const ok = await socks(p, 'registry.test', echoPort)
    expect(ok.rep).toBe(0)
    expect(await roundTrip(ok.socket, 'socks')).toBe('socks')
    ok.socket.destroy()
    const no = await socks(p, 'mirror.test', echoPort)
    expect(no.rep).toBe(2)
    no.socket.destroy()
    const junk = await socks(p, 'a b\u0000*', echoPort)
    expect(junk.rep).toBe(2)
    junk.socket.destroy()
    expect(p.records.map((r) => [r.host, r.protocol, r.decision])).toEqual([['registry.test', 'socks5_tcp', 'allowed'], ['mirror.test', 'socks5_tcp', 'denied'], ['a b\u0000*', 'socks5_tcp', 'denied']])
    expect(p.records[2]!.reason).toMatch(/is not a host name/)
  })

  describe('IPv6 targets (SOCKS5 ATYP 4 and names; HTTP CONNECT to a bracketed literal)', () => {
    let echo6: Server
    let echo6Port = 0
    beforeAll(async () => {
      echo6 = createServer((s) => s.pipe(s))
      await new Promise<void>((r) => echo6.listen(0, '::1', r))
      echo6Port = (echo6.address() as AddressInfo).port
    })
    afterAll(() => echo6.close())

    it('an IPv6 literal (ATYP 4) is refused unless an allow entry names that address; then it relays', async () => {
      const no = await proxy(ALLOW)
      const refused = await socks(no, '::1', echo6Port)
      expect(refused.rep).toBe(2)
      refused.socket.destroy()
      expect(no.records[0]).toMatchObject({ host: '::1', protocol: 'socks5_tcp', decision: 'denied', reason: expect.stringMatching(/IP address/) })
      const yes = await proxy({ allow: [`[::1]:${echo6Port}`] })
      const ok = await socks(yes, '::1', echo6Port)
      expect(ok.rep).toBe(0)
      expect(await roundTrip(ok.socket, 'over ipv6')).toBe('over ipv6')
      ok.socket.destroy()
      expect(yes.records[0]).toMatchObject({ host: '::1', decision: 'allowed' })
    })

    it('an allowed name that resolves to IPv6 loopback, unique-local, link-local or an IPv4-mapped loopback/metadata address is refused', async () => {
      const names = ['v6loop.test', 'v6ula.test', 'v6link.test', 'v6meta.test', 'v6mappedloop.test']
      const p = await proxy({ allow: names })
      for (const name of names) {
        const r = await socks(p, name, echo6Port)
        expect(r.rep, name).not.toBe(0)
        r.socket.destroy()
      }
      expect(p.records.map((r) => [r.host, r.decision])).toEqual(names.map((n) => [n, 'denied']))
      for (const r of p.records) expect(r.reason, r.host).toMatch(/loopback|private|link-local|metadata|not a public/i)
    })

    it('HTTP CONNECT to [::1]:PORT: refused without an entry for that address, relayed with one', async () => {
      const no = await proxy(ALLOW)
      expect((await connectVia(no, `[::1]:${echo6Port}`)).status).toBe(403)
      const yes = await proxy({ allow: [`[::1]:${echo6Port}`] })
      const c = await connectVia(yes, `[::1]:${echo6Port}`)
      expect(c.status).toBe(200)
      expect(await roundTrip(c.socket, 'connect v6')).toBe('connect v6')
      c.socket.destroy()
    })
  })

  it('a target that is no host name never reaches the approver', async () => {
    let asked = 0
    const p = await proxy(ALLOW, { ask: () => (asked++, 'approved_for_session') })
    for (const bad of ['*.test', 'a b', 'x/y']) {
      const r = await socks(p, bad, echoPort)
      expect(r.rep, bad).toBe(2)
      r.socket.destroy()
    }
    expect(asked).toBe(0)
  })
})

describe('network proxy: a bound on connections', () => {
  it(`holds at most ${MAX_PROXY_CONNECTIONS} connections at once, on its TCP port and its unix socket together: past it a new one is cut, and a slot freed is usable again`, async () => {
    const socketPath = join(tempDir('cordon-proxy-bound-'), 'proxy.sock')
    const p = await proxy(ALLOW, { socketPath })
    const open = (): Promise<Socket> =>
      new Promise((resolve, reject) => {
        const s = connect(p.port, '127.0.0.1', () => resolve(s))
        s.once('error', reject)
      })
    /** Whether the proxy reset `s` (or closed it) within `ms`. */
    const cut = (s: Socket, ms: number) =>
      new Promise<boolean>((resolve) => {
        const t = setTimeout(() => resolve(false), ms)
        s.once('close', () => (clearTimeout(t), resolve(true)))
        s.once('error', () => {})
      })
    const held: Socket[] = []
    for (let i = 0; i < MAX_PROXY_CONNECTIONS; i++) held.push(await open())
    // Reset as soon as it is accepted: the client may see it before or after its connect completes.
    const over = connect(p.port, '127.0.0.1')
    expect(await cut(over, 2000)).toBe(true)
    // The unix socket (namespace mode's forwarder) counts against the same bound; it is closed, not
    // reset (a reset is TCP's: resetAndDestroy() threw there, an uncaught exception in the caller).
    expect(await cut(connect(socketPath), 2000)).toBe(true)
    expect(await cut(held[held.length - 1]!, 200)).toBe(false) // the ones within the bound stay open
    held.shift()!.destroy()
    await new Promise((r) => setTimeout(r, 100)) // the proxy sees that one close
    const again = await open()
    expect(await cut(again, 300)).toBe(false)
    for (const s of [...held, again]) s.destroy()
  }, 30_000)
})

describe('network proxy: asking', () => {
  it('ask → approved for the session → the next request to that host:port is not asked', async () => {
    const asked: NetworkAsk[] = []
    const p = await proxy({ allow: ['127.0.0.2'] }, { ask: (q) => (asked.push(q), 'approved_for_session') })
    expect((await plainGet(p, `http://asked.test:${port}/a`)).status).toBe(200)
    expect((await plainGet(p, `http://asked.test:${port}/b`)).status).toBe(200)
    expect(asked).toEqual([{ host: 'asked.test', port, protocol: 'http', reason: `asked.test:${port} is not in the allowlist` }])
    expect(p.records.map((r) => r.source)).toEqual(['user', 'session'])
  })

  it('concurrent requests to one host ask once; a denial refuses them all', async () => {
    let calls = 0
    const p = await proxy({ allow: ['127.0.0.2'] }, { ask: async () => (calls++, await new Promise((r) => setTimeout(r, 50)), 'denied' as NetworkAnswer) })
    const rs = await Promise.all([1, 2, 3].map(() => plainGet(p, `http://asked.test:${port}/`)))
    expect(rs.map((r) => r.status)).toEqual([403, 403, 403])
    expect(calls).toBe(1)
  })

  it('a network amendment is persisted and kept for the session; a failing approver refuses', async () => {
    const persisted: unknown[] = []
    const p = await proxy({ allow: ['127.0.0.2'] }, { ask: () => ({ type: 'network_amendment', action: 'allow' }), persist: async (...a) => void persisted.push(a) })
    expect((await plainGet(p, `http://asked.test:${port}/`)).status).toBe(200)
    expect((await plainGet(p, `http://asked.test:${port}/`)).status).toBe(200)
    expect(persisted).toEqual([['asked.test', 'http', 'allow']])
    const q = await proxy({ allow: ['127.0.0.2'] }, { ask: () => { throw new Error('no terminal') } })
    const r = await plainGet(q, `http://asked.test:${port}/`)
    expect(r).toMatchObject({ status: 403, body: expect.stringMatching(/the approver failed: no terminal/) })
  })
})

describe('network proxy: the credential of the TCP port', () => {
  const TOKEN = 'sandbox-token-123'
  const basic = (t: string) => `Proxy-Authorization: Basic ${Buffer.from(`cordon:${t}`).toString('base64')}\r\n`

  it('HTTP: no credential or a wrong one is a 407 with a challenge, the right one passes; the unix socket needs none', async () => {
    const socketPath = join(tempDir('proxysock-'), 'proxy.sock')
    const p = await proxy(ALLOW, { token: TOKEN, socketPath })
    const none = await connectVia(p, `registry.test:${echoPort}`)
    expect(none.status).toBe(407)
    expect(none.text).toMatch(/Proxy-Authenticate: Basic realm="cordon"/)
    expect((await connectVia(p, `registry.test:${echoPort}`, undefined, basic('wrong'))).status).toBe(407)
    const ok = await connectVia(p, `registry.test:${echoPort}`, undefined, basic(TOKEN))
    expect(ok.status).toBe(200)
    ok.socket.destroy()
    const viaUnix = await connectVia(p, `registry.test:${echoPort}`, undefined, '', { path: socketPath })
    expect(viaUnix.status).toBe(200)
    viaUnix.socket.destroy()
    expect((await plainGet(p, `http://registry.test:${port}/`)).status).toBe(407)
    expect(p.records).toHaveLength(2) // refused before the gate: no host was asked for
  })
})
