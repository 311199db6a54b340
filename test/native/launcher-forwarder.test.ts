/**
 * Namespace mode's forwarder (native/linux/forwarder.c), driven directly
 * with a plan in the caller's own network namespace (bwrap is not needed to
 * see what the launcher does): the command reaches the real proxy through
 * 127.0.0.1:PORT → the proxy's unix socket; the forwarder is swept with the
 * run; a forwarder that cannot be confined stops the launch (step
 * `forwarder`), and the command never runs.
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http'
import { connect, createServer, type AddressInfo } from 'node:net'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { buildNetworkLists } from '../../src/network/policy.js'
import { startNetworkProxy, type NetworkProxy } from '../../src/network/proxy/proxy.js'
import { forwarderPlan, freePort, spawnLauncher } from '../helpers/forwarder.js'
import { removeTempDirs, tempDir } from '../helpers/temp.js'

const probe = join(inject('cordonProbeDir'), 'probe-net')
let registry: HttpServer
let proxy: NetworkProxy
let socketPath: string

beforeAll(async () => {
  registry = createHttpServer((_q, r) => r.end('registry'))
  await new Promise<void>((r) => registry.listen(0, '127.0.0.2', r))
  socketPath = join(tempDir('fwd-'), 'proxy.sock')
  proxy = await startNetworkProxy({ lists: buildNetworkLists({ allow: ['registry.test', '127.0.0.2'] }), lookup: (_h, _o, cb) => cb(null, [{ address: '127.0.0.2', family: 4 }]), socketPath, token: 'not-needed-on-the-socket' })
})
afterAll(async () => {
  registry.close()
  await proxy.close()
  removeTempDirs()
})

const plan = (argv: string[], port: number, forwarder: Record<string, unknown> = {}) => forwarderPlan(argv, port, socketPath, { forwarder })

function collect(stream: Readable): Promise<string> {
  return new Promise((resolve) => {
    let text = ''
    stream.on('data', (d: Buffer) => (text += d.toString()))
    stream.on('close', () => resolve(text))
  })
}

async function launch(p: object): Promise<{ stdout: string; status: Record<string, unknown>[] }> {
  const child = spawnLauncher(p)
  const [stdout, status] = await Promise.all([collect(child.stdout!), collect(child.stdio[4] as Readable)])
  return { stdout: stdout.trim(), status: status.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) }
}

/** What a connect to 127.0.0.1:port gets: OK, or the error code. */
function refused(port: number): Promise<string> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1')
    s.on('connect', () => (s.destroy(), resolve('OK'))).on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'ERR'))
  })
}

describe('launcher: the network forwarder', () => {
  it('relays the command to the proxy through its unix socket, and is gone when the run ends', async () => {
    const port = await freePort()
    const r = await launch(plan([probe, 'proxy', `registry.test:${(registry.address() as AddressInfo).port}`], port))
    expect(r.status[0]).toMatchObject({ ok: true })
    expect(r.stdout).toBe('OK:registry')
    expect(proxy.records.at(-1)).toMatchObject({ host: 'registry.test', decision: 'allowed' })
    // Swept with the run: nothing listens on its port any more.
    expect(await refused(port)).toBe('ECONNREFUSED')
  })

  it('a forwarder that cannot be confined stops the launch before the command runs', async () => {
    const port = await freePort()
    const r = await launch(plan([probe, 'proxy', 'registry.test:1'], port, { seccomp: { bpf: 'AAAA', rules: 1 } }))
    expect(r.status).toEqual([expect.objectContaining({ ok: false, step: 'forwarder', syscall: 'confine', errno: 22 })])
    expect(r.stdout).toBe('')
    expect(await refused(port)).toBe('ECONNREFUSED')
  })

  it('a port the forwarder cannot bind is a setup error naming it', async () => {
    const taken = createServer()
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r))
    const port = (taken.address() as AddressInfo).port
    const r = await launch(plan([probe, 'proxy', 'registry.test:1'], port))
    taken.close()
    expect(r.status).toEqual([expect.objectContaining({ ok: false, step: 'forwarder', syscall: 'bind', errno: 98 })])
    expect(r.stdout).toBe('')
  })
})
