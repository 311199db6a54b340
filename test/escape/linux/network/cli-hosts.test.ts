/**
 * `cordon run --allow-host / --deny-host` (docs/cli.md, docs/network.md):
 * the CLI, spawned as a user runs it, as each caller and in each mode.
 * Three servers on loopback: one allowed, one no entry names, one both
 * allowed and denied (deny wins). A Node probe inside the sandbox asks for
 * each through the proxy its environment names, and connects straight to
 * the allowed server's port, around the proxy. The same probe unconfined
 * (no proxy in its environment) reaches all three and connects, so every
 * refusal below is the sandbox's.
 */
import { execFile } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { identities, type Identity } from '../../../helpers/identity.js'
import { modeMissing, TEST_MODES, type TestMode } from '../../../helpers/modes.js'
import { listenBelowEphemeral } from '../../../helpers/ports.js'
import { describeWhere } from '../../../helpers/requirements.js'
import { makeTree, type Tree } from '../../../helpers/tree.js'
import { bin } from '../../../unit/cli/cordon-bin.js'

const PROBE = `
const http = require('node:http')
const net = require('node:net')
const proxy = process.env.HTTP_PROXY ? new URL(process.env.HTTP_PROXY) : undefined
const auth = proxy && 'Basic ' + Buffer.from(decodeURIComponent(proxy.username) + ':' + decodeURIComponent(proxy.password)).toString('base64')
const get = (port) => new Promise((resolve) => {
  const target = '127.0.0.1:' + port
  const o = proxy ? { host: proxy.hostname, port: proxy.port, path: 'http://' + target + '/', headers: { host: target, 'proxy-authorization': auth } } : { host: '127.0.0.1', port, path: '/' }
  http.get(o, (res) => { let body = ''; res.on('data', (d) => (body += d)); res.on('end', () => resolve(res.statusCode + ' ' + body.slice(0, 200))) }).on('error', (e) => resolve(e.code))
})
const direct = (port) => new Promise((resolve) => {
  const s = net.connect(port, '127.0.0.1', () => { s.destroy(); resolve('connected') })
  s.on('error', (e) => resolve(e.code))
})
const [allowed, other, denied] = process.argv.slice(2).map(Number)
;(async () => console.log(JSON.stringify({ allowed: await get(allowed), other: await get(other), denied: await get(denied), direct: await direct(allowed) })))()
`

interface ProbeOut {
  allowed: string
  other: string
  denied: string
  direct: string
}
interface RunJson {
  exitCode: number
  stdout: string
  stderr: string
  enforcement: { network: string; proxy?: { allow: string[]; deny: string[]; requests: { host: string; port: number; decision: string; reason?: string }[] } }
}

const servers: Server[] = []
const ports = { allowed: 0, other: 0, denied: 0 }

beforeAll(async () => {
  for (const name of ['allowed', 'other', 'denied'] as const) {
    const s = createServer((_req, res) => res.end(`server ${name}`))
    servers.push(s)
    ports[name] = await listenBelowEphemeral(s, '127.0.0.1')
  }
})
afterAll(() => servers.forEach((s) => s.close()))

function run(identity: Identity, argv: readonly string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const [file, ...args] = identity.wrap(argv)
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', ...identity.env }
  return new Promise((resolve) => {
    execFile(file!, args, { cwd, env, timeout: 60_000 }, (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }))
  })
}

function cell(identity: Identity, mode: TestMode): void {
  let tree: Tree
  let probe: string
  beforeAll(() => {
    tree = makeTree(identity, `cli-hosts-${identity.name}-${mode}`)
    probe = tree.file('work/probe.cjs', PROBE)
  })
  afterAll(() => tree?.cleanup())
  const probeArgs = () => [process.execPath, probe, String(ports.allowed), String(ports.other), String(ports.denied)]

  it('unconfined, the probe reaches every server and connects directly', async () => {
    const r = await run(identity, probeArgs(), tree.work)
    expect(r.code, r.stderr).toBe(0)
    const out = JSON.parse(r.stdout) as ProbeOut
    expect(out).toEqual({ allowed: '200 server allowed', other: '200 server other', denied: '200 server denied', direct: 'connected' })
  })

  it('--allow-host lets only the named host:port through the proxy, --deny-host wins, and the direct connect is refused', async () => {
    const flags = ['--allow-host', `127.0.0.1:${ports.allowed}`, '--allow-host', `127.0.0.1:${ports.denied}`, '--deny-host', `127.0.0.1:${ports.denied}`]
    const r = await run(identity, [process.execPath, bin, 'run', '--mode', mode, '--json', '--cwd', tree.work, ...flags, '--', ...probeArgs()], tree.work)
    expect(r.code, r.stderr).toBe(0)
    const res = JSON.parse(r.stdout) as RunJson
    expect(res.exitCode, res.stderr).toBe(0)
    const out = JSON.parse(res.stdout) as ProbeOut
    expect(out.allowed).toBe('200 server allowed')
    expect(out.other).toMatch(/^403 .*only an allow entry naming that address/)
    expect(out.denied).toMatch(/^403 /)
    expect(out.denied).not.toContain('server denied')
    // Around the proxy: in both modes a Landlock rule allows TCP connect to one port only
    // (the proxy's; namespace mode: the forwarder's, in a network namespace of loopback only).
    expect(out.direct).toBe('EACCES')
    expect(res.enforcement.network).toBe('proxy')
    expect(res.enforcement.proxy?.allow).toEqual([`127.0.0.1:${ports.allowed}`, `127.0.0.1:${ports.denied}`])
    expect(res.enforcement.proxy?.deny).toEqual([`127.0.0.1:${ports.denied}`])
    const decision = (port: number) => res.enforcement.proxy?.requests.find((q) => q.port === port)?.decision
    expect([decision(ports.allowed), decision(ports.other), decision(ports.denied)]).toEqual(['allowed', 'denied', 'denied'])
  })
}

for (const identity of identities()) {
  describe(`cordon run --allow-host/--deny-host — caller: ${identity.name}`, () => {
    for (const mode of TEST_MODES) describeWhere(modeMissing(identity, mode), `mode: ${mode}`, () => cell(identity, mode))
  })
}
