/**
 * A network allowlist (docs/network.md): the command reaches the network
 * only through cordon's proxy. Servers this test starts on loopback stand
 * in for a registry (127.0.0.2, reached by the name registry.test through
 * the sandbox's `networkLookup`), and nothing leaves the machine.
 *
 * Both modes: Landlock mode (a Landlock TCP rule to the proxy's port) and
 * namespace mode (a network namespace with loopback only, and the
 * launcher's forwarder on 127.0.0.1:PORT relaying to the proxy's unix
 * socket). The bypass probes (a direct TCP connect to the server's real port, UDP,
 * raw sockets) run unconfined too, to prove they work without the sandbox.
 * The proxy's decisions are the proxy's (an HTTP 403 with the rule's
 * reason): unconfined, the probe finds no proxy in its environment, so
 * those runs assert the confined answer and the report only.
 */
import { createSocket, type Socket } from 'node:dgram'
import { createServer, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { describeEscape, Escape, firstLine } from '../../../helpers/escape.js'
import type { DriverReply } from '../../../helpers/run-driver.js'
import { listenBelowEphemeral } from '../../../helpers/ports.js'

let registry: Server
let udp: Socket
const ports = { http: 0, udp: 0 }

const HOSTS = { 'registry.test': '127.0.0.2', 'asked.test': '127.0.0.2', 'mirror.test': '127.0.0.2', 'rebind.test': '127.0.0.1', 'inside.test': '10.0.0.1', 'metadata.test': '169.254.169.254' }

beforeAll(async () => {
  registry = createServer((_req, res) => res.end('registry'))
  ports.http = await listenBelowEphemeral(registry, '127.0.0.2')
  udp = createSocket('udp4')
  await new Promise<void>((r) => udp.bind(0, '127.0.0.1', r))
  ports.udp = udp.address().port
})

afterAll(() => {
  registry?.close()
  udp?.close()
})

function allowlist(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    // The address entry lets registry.test reach a loopback address at all; rebind.test is
    // allowed by name only, so its loopback answer must be refused.
    profile: { filesystem: { write: ['${cwd}'] }, network: { allow: ['registry.test', '127.0.0.2', 'rebind.test', 'inside.test', 'metadata.test'], deny: ['mirror.test'] } },
    networkHosts: HOSTS,
    ...extra,
  }
}

/** The run's result; a driver error (the sandbox could not be set up) fails the test with its text. */
function resultOf(reply: DriverReply) {
  if (reply.error) throw new Error(`the confined run failed to start: ${JSON.stringify(reply.error)}`)
  return reply.result
}

function requests(reply: DriverReply) {
  return resultOf(reply).enforcement?.proxy?.requests ?? []
}

describeEscape('network allowlist', (identity, mode) => {
  let e: Escape
  const isRoot = identity.name === 'root'
  beforeAll(() => {
    e = new Escape(identity, mode, 'netallow')
  })
  afterAll(() => e?.cleanup())
  const net = (...args: string[]) => [e.probe('net'), ...args]
  const target = (name: string) => `${name}:${ports.http}`

  describe('through the proxy', () => {
    it('an allowed host, reached by name, answers', async () => {
      const reply = await e.confined(net('proxy', target('registry.test')), { options: allowlist() })
      expect(firstLine(resultOf(reply).stdout)).toBe('OK:registry')
      expect(requests(reply)).toEqual([expect.objectContaining({ host: 'registry.test', port: ports.http, protocol: 'https', decision: 'allowed', source: 'profile', address: '127.0.0.2' })])
      const enforcement = resultOf(reply).enforcement!
      expect(enforcement).toMatchObject({ mode, network: 'proxy', proxy: { allow: expect.arrayContaining(['registry.test']), deny: ['mirror.test'] } })
      // Landlock mode: the supervisor checks each connect's address (Landlock's rule has the port
      // only), and says so; namespace mode has loopback only, with the forwarder as the way out.
      // (A caller without a cgroup of its own — unprivileged here — also has `cgroup` missing: not the network's.)
      const missing = enforcement.missing.filter((m) => m.protection !== 'cgroup')
      expect(missing).toEqual([])
      if (mode === 'landlock') expect(enforcement.notes.join('\n')).toMatch(/TCP connect\(\) is decided by the supervisor: only the proxy's endpoint/)
      else expect(enforcement.notes.join('\n')).toMatch(/loopback only; its one way out is cordon's forwarder/)
    })

    it('a denied host is refused with the rule that denies it', async () => {
      const reply = await e.confined(net('proxy', target('mirror.test')), { options: allowlist() })
      expect(firstLine(resultOf(reply).stdout)).toBe('HTTP403')
      expect(requests(reply)).toEqual([expect.objectContaining({ host: 'mirror.test', decision: 'denied', source: 'profile', reason: "denied by 'mirror.test'" })])
    })

    it('the metadata address is refused, as an IP literal and behind an allowed name', async () => {
      const reply = await e.confined(net('proxy', '169.254.169.254:80', target('metadata.test')), { options: allowlist() })
      expect(firstLine(resultOf(reply).stdout)).toBe('HTTP403 HTTP403')
      expect(requests(reply).map((r) => [r.host, r.decision, r.reason])).toEqual([
        ['169.254.169.254', 'denied', expect.stringMatching(/is an IP address/)],
        ['metadata.test', 'denied', expect.stringMatching(/link-local \(cloud metadata\)/)],
      ])
    })

    it('an allowed name that resolves to loopback or a private address (rebinding) is refused', async () => {
      const reply = await e.confined(net('proxy', target('rebind.test'), target('inside.test')), { options: allowlist() })
      expect(firstLine(resultOf(reply).stdout)).toBe('HTTP403 HTTP403')
      expect(requests(reply).map((r) => r.reason)).toEqual([expect.stringMatching(/127\.0\.0\.1, a loopback address/), expect.stringMatching(/10\.0\.0\.1, a private/)])
    })

    it('200 tunnels open at once are all answered (namespace mode: through the forwarder)', async () => {
      const reply = await e.confined(net('proxymany', '200', target('registry.test')), { options: allowlist(), runOptions: { timeout: 60_000 } })
      expect(firstLine(resultOf(reply).stdout)).toBe('OK:200')
      expect(requests(reply)).toHaveLength(200)
    }, 90_000)

    it('ask → approved for the session → the second request is not asked', async () => {
      const reply = await e.confined(net('proxy', target('asked.test'), target('asked.test')), { options: allowlist({ networkAnswers: { 'asked.test': 'approved_for_session' } }) })
      expect(firstLine(resultOf(reply).stdout)).toBe('OK:registry OK:registry')
      expect(requests(reply).map((r) => [r.host, r.decision, r.source])).toEqual([
        ['asked.test', 'allowed', 'user'],
        ['asked.test', 'allowed', 'session'],
      ])
    })
  })

  describe('around the proxy', () => {
    it('a direct TCP connect to the server\'s real port is refused (Landlock; in namespace mode the namespace too)', async () => {
      await e.denial(net('tcp', '127.0.0.2', String(ports.http)), 'EACCES', 'OK', { options: allowlist() })
    })

    // TCP Fast Open connects inside the send, where Landlock's connect rule never looks: it reached
    // any port until the filter refused MSG_FASTOPEN (profiles/linux/seccomp.rules). Namespace mode
    // refuses it the same way (its namespace has loopback only: nothing would answer there anyway).
    it.each(['tfo', 'tfomsg', 'tfommsg'])('a TCP Fast Open connect (%s with MSG_FASTOPEN) to the real port is refused', async (how) => {
      await e.denial(net(how, '127.0.0.2', String(ports.http)), 'EOPNOTSUPP', 'OK', { options: allowlist() })
    })

    // Landlock's TCP rule lets the proxy's port through on every host; the supervisor checks the
    // address (native/linux/notify-connect.c) and refuses it — without it the kernel tried the
    // connect (ECONNREFUSED: nothing listens on 127.0.0.2 at that port; an outside server listening
    // on every port would have answered). Namespace mode: loopback only, nothing there either.
    // Unconfined (no proxy in the environment) the probe connects to the server's own port.
    it("the proxy's port on another address is refused (Landlock matches the port only; the supervisor checks the address)", async () => {
      await e.denial(net('proxyport', '127.0.0.2', String(ports.http)), mode === 'landlock' ? 'EACCES' : 'ECONNREFUSED', 'OK', { options: allowlist() })
    })

    it('listening on a TCP port is refused (no way in either)', async () => {
      await e.denial(net('bind', '0'), 'EACCES', 'OK', { options: allowlist() })
    })

    // listen() on an unbound socket binds a port on every address itself, past Landlock's bind
    // rule: any host could connect in (red team). Refused by the filter in both modes.
    it('listening without bind() (the kernel picks the port) is refused', async () => {
      await e.denial(net('listen'), 'EACCES', 'OK', { options: allowlist() })
    })

    it('UDP (and so DNS) is refused at socket()', async () => {
      await e.denial(net('udp', '127.0.0.1', String(ports.udp)), 'EAFNOSUPPORT', 'OK', { options: allowlist() })
    })

    it('raw sockets are refused at socket()', async () => {
      // Unprivileged, the kernel refuses with EPERM (no CAP_NET_RAW): not the filter's errno.
      await e.denial(net('raw'), 'EAFNOSUPPORT', isRoot ? 'OK' : 'differs', { options: allowlist() })
    })

    it('netlink and packet sockets are refused at socket()', async () => {
      await e.denial(net('netlink'), 'EAFNOSUPPORT', 'OK', { options: allowlist() })
      await e.denial(net('packet'), 'EAFNOSUPPORT', isRoot ? 'OK' : 'differs', { options: allowlist() })
    })

    it('socketpair(AF_UNIX) still works', async () => {
      await e.denial(net('socketpair'), 'OK', 'OK', { options: allowlist() })
    })
  })
})
