/**
 * connect(2) with a network allowlist in Landlock mode, driven directly
 * with a launcher plan: Landlock's TCP rule lets port P through on every
 * host, so the supervisor (native/linux/notify-connect.c) checks the
 * address and connects only 127.0.0.1:P itself. Two real servers listen on
 * the same port P, on 127.0.0.1 (the proxy's place) and on 127.0.0.2 (an
 * outside server on the proxy's port): with the supervisor the first
 * answers and the second is refused; without the filter both answer (the
 * gap it closes); with no listener to be had every connect is refused.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { release, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { metadataProgram, seccompProgram } from '../../src/platform/linux/landlock/plan.js'
import { runLauncher } from '../helpers/launcher-run.js'
import { itWhere, unless } from '../helpers/requirements.js'
import { repoRoot } from '../helpers/paths.js'

const probe = join(inject('cordonProbeDir'), 'probe-net')
let dir: string
let denyCall: string
const servers: Server[] = []
let port = 0

/** Listen on host:port (0: any free port); resolves with the port. */
function listen(host: string, at: number): Promise<number> {
  const s = createServer((c) => c.end())
  servers.push(s)
  return new Promise((resolve, reject) => {
    s.once('error', reject)
    s.listen(at, host, () => resolve((s.address() as { port: number }).port))
  })
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cordon-connect-'))
  denyCall = join(dir, 'deny-call')
  execFileSync('cc', ['-O1', '-Wall', '-o', denyCall, join(repoRoot, 'test/native/fixtures/deny-call.c')])
  port = await listen('127.0.0.1', 0)
  await listen('127.0.0.2', port)
})
afterAll(() => {
  for (const s of servers) s.close()
  rmSync(dir, { recursive: true, force: true })
})

function plan(argv: string[], extra: Record<string, unknown> = {}) {
  const landlock = { rules: [{ path: '/', access: ['read'] }, { path: dir, access: ['read', 'write'] }], networkOff: false, connectPorts: [port], scopeSignal: true, scopeAbstractUnix: true, log: false }
  return { v: 1, argv, env: ['PATH=/usr/bin:/bin'], cwd: dir, compat: 'best-effort', rlimits: [], landlock, seccomp: seccompProgram('proxy'), metadata: metadataProgram('proxy'), ...extra }
}

const launch = runLauncher

/** Whether the running kernel is at least major.minor. */
function atLeastKernel(major: number, minor: number): boolean {
  const [a = 0, b = 0] = release().split('.').map((n) => parseInt(n, 10))
  return a > major || (a === major && b >= minor)
}

const tcp = (host: string, at = port) => [probe, 'tcp', host, String(at)]

describe('launcher: connect with a network allowlist (Landlock mode)', () => {
  it('both servers answer an unconfined probe: the probe and the servers work', () => {
    for (const host of ['127.0.0.1', '127.0.0.2']) expect(execFileSync(probe, ['tcp', host, String(port)], { encoding: 'utf8' }).trim()).toBe('OK')
  })

  it('the supervisor connects the proxy endpoint (IPv4 and IPv4-mapped IPv6) and refuses the same port elsewhere', async () => {
    const ok = await launch(plan(tcp('127.0.0.1')))
    expect(ok.status[0]).toMatchObject({ ok: true, metadata: 1 })
    expect(ok.stdout).toBe('OK')
    expect((await launch(plan(tcp('::ffff:127.0.0.1')))).stdout).toBe('OK')
    expect((await launch(plan(tcp('127.0.0.2')))).stdout).toBe('EACCES')
    expect((await launch(plan(tcp('::1')))).stdout).toBe('EACCES')
  })

  it('another port is refused as before (by the supervisor, which sees every connect)', async () => {
    expect((await launch(plan(tcp('127.0.0.1', port === 65535 ? 1 : port + 1)))).stdout).toBe('EACCES')
  })

  it('without the filter (metadata: -1) Landlock alone lets the proxy port on another address through: the gap it closes', async () => {
    const r = await launch(plan(tcp('127.0.0.2'), { metadata: undefined }))
    expect(r.status[0]).toMatchObject({ ok: true, metadata: -1 })
    expect(r.stdout).toBe('OK')
  })

  // SO_BINDTODEVICE sends the SYN for 127.0.0.1 out of that device, where nothing answers: the
  // supervisor, which answers one call at a time, was held for as long as the command's SYN retries
  // (red team). In a network namespace of the test's own (a veth pair inside it), nothing leaves the machine.
  // lo, and a veth pair whose far end takes what is routed to it and answers nothing: a route and a
  // neighbour entry make the SYN leave by v0 at once (no ARP), into v1, inside this namespace.
  const IP = '/usr/sbin/ip'
  const setup = [
    `${IP} link set lo up`,
    `${IP} link add v0 type veth peer name v1`,
    `${IP} addr add 10.9.9.1/24 dev v0`,
    `${IP} link set v0 up`,
    `${IP} link set v1 up`,
    `${IP} route add default via 10.9.9.2 dev v0`,
    `${IP} neigh add 10.9.9.2 lladdr 02:00:00:00:00:02 dev v0`,
  ].join(' && ')
  const netns = ['/usr/bin/unshare', '-n', '/bin/sh', '-c', `${setup} && exec "$@"`, 'netns']
  itWhere(
    unless(process.getuid?.() === 0 && existsSync('/usr/sbin/ip') && existsSync('/usr/bin/unshare'), 'needs root and ip(8) (iproute2) to make a network namespace with a veth pair'),
    'a socket bound to a device other than lo is refused at once, not connected by the supervisor',
    async () => {
      const started = Date.now()
      const r = await launch(plan([probe, 'tcpdev', 'v0', '127.0.0.1', String(port)]), netns)
      expect(r.status[0]).toMatchObject({ ok: true, metadata: 1 })
      expect(r.stdout).toBe('EACCES')
      expect(Date.now() - started).toBeLessThan(5000)
      // Unconfined in the same kind of namespace, the SYN goes out of v0 and nothing answers (its 1 s timeout).
      expect(execFileSync(netns[0]!, [...netns.slice(1), probe, 'tcpdev', 'v0', '127.0.0.1', String(port)], { encoding: 'utf8' }).trim()).toBe('EINPROGRESS')
      // Bound to lo it is the proxy's endpoint as before: nothing listens at that port in the new namespace.
      expect((await launch(plan([probe, 'tcpdev', 'lo', '127.0.0.1', String(port)]), netns)).stdout).toBe('ECONNREFUSED')
    },
    20_000,
  )

  // The socket is the calling thread's: a thread made without CLONE_FILES has its own table, and
  // taking fd N from the thread group's (before PIDFD_THREAD) connected another socket or none.
  itWhere(
    unless(atLeastKernel(6, 9), `needs Linux 6.9 (pidfd_open's PIDFD_THREAD) to take a socket from one thread's own table; this kernel is ${release()}`),
    "a thread with a descriptor table of its own connects its own socket",
    async () => {
      expect(execFileSync(probe, ['threadconnect', '127.0.0.1', String(port)], { encoding: 'utf8' }).trim()).toBe('OK')
      expect((await launch(plan([probe, 'threadconnect', '127.0.0.1', String(port)]))).stdout).toBe('OK')
      expect((await launch(plan([probe, 'threadconnect', '127.0.0.2', String(port)]))).stdout).toBe('EACCES')
    },
  )

  it('no listener to be had (a parent filter refuses NEW_LISTENER): every connect is refused, the proxy included, never let through', async () => {
    const a = await launch(plan(tcp('127.0.0.1')), [denyCall, 'listener'])
    expect(a.status[0]).toMatchObject({ ok: true, metadata: 0 })
    expect(a.stdout).toBe('EPERM')
    expect((await launch(plan(tcp('127.0.0.2')), [denyCall, 'listener'])).stdout).toBe('EPERM')
  })
})
