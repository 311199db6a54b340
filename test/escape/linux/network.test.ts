/**
 * Network with the profile's network off (threat-model.md § Network): every
 * new socket is refused by the seccomp socket rule (EAFNOSUPPORT), including
 * AF_UNIX to host daemons; socketpair(AF_UNIX) keeps working. With network
 * 'inet' TCP works and host unix sockets stay refused; with 'on' both work.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createSocket, type Socket } from 'node:dgram'
import { chmodSync, existsSync, rmSync } from 'node:fs'
import { createServer, type AddressInfo, type Server } from 'node:net'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, inject, it } from 'vitest'
import { describeEscape, Escape } from '../../helpers/escape.js'
import { makeTestTmpDir } from '../../helpers/paths.js'
import { itWhere, unless } from '../../helpers/requirements.js'

// AF_VSOCK exists where the machine is a VM with a vsock device (Firecracker, QEMU virtio-vsock).
const noVsock = unless(existsSync('/dev/vsock'), 'this host has no AF_VSOCK (/dev/vsock is missing: a VM with a virtio-vsock device, or `modprobe vhost_vsock`), so there is nothing for the vsock rule to refuse')

const servers: Server[] = []
let udp: Socket
let socketDir: string
let socketPath: string
let dgramPath: string
let dgramDaemon: ChildProcess | undefined
const abstractName = `cordon-escape-${randomBytes(6).toString('hex')}`
const ports: { v4: number; v6: number; udp: number } = { v4: 0, v6: 0, udp: 0 }

function listen(target: { host: string; port: number } | string): Promise<Server> {
  const server = createServer((sock) => sock.end())
  servers.push(server)
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    if (typeof target === 'string') server.listen(target, () => resolve(server))
    else server.listen(target.port, target.host, () => resolve(server))
  })
}

beforeAll(async () => {
  ports.v4 = ((await listen({ host: '127.0.0.1', port: 0 })).address() as AddressInfo).port
  ports.v6 = ((await listen({ host: '::1', port: 0 })).address() as AddressInfo).port
  socketDir = makeTestTmpDir('sock-')
  socketPath = join(socketDir, 'daemon.sock')
  await listen(socketPath)
  chmodSync(socketPath, 0o777) // any identity may connect when nothing confines it
  await listen(`\0${abstractName}`)
  // A host daemon's datagram socket (journald's, /dev/log): Node binds none, the net probe does.
  dgramPath = join(socketDir, 'daemon-dgram.sock')
  const daemon = spawn(join(inject('cordonProbeDir'), 'probe-net'), ['dgrambind', dgramPath], { stdio: ['ignore', 'pipe', 'inherit'] })
  dgramDaemon = daemon
  await new Promise<void>((resolve, reject) => {
    daemon.stdout!.once('data', () => resolve())
    daemon.once('exit', (code) => reject(new Error(`the datagram daemon exited (${code})`)))
  })
  udp = createSocket('udp4')
  await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve))
  ports.udp = udp.address().port
})

afterAll(() => {
  dgramDaemon?.kill('SIGKILL')
  for (const s of servers) s.close()
  udp?.close()
  if (socketDir) rmSync(socketDir, { recursive: true, force: true })
})

describeEscape('network', (identity, mode) => {
  let e: Escape
  const isRoot = identity.name === 'root'
  beforeAll(() => {
    e = new Escape(identity, mode, 'net')
  })
  afterAll(() => e?.cleanup())
  const net = (...args: string[]) => [e.probe('net'), ...args]

  describe('network off', () => {
    it('TCP connect to a local server on 127.0.0.1', async () => {
      await e.denial(net('tcp', '127.0.0.1', String(ports.v4)), 'EAFNOSUPPORT')
    })

    it('TCP connect to a local server on [::1]', async () => {
      await e.denial(net('tcp', '::1', String(ports.v6)), 'EAFNOSUPPORT')
    })

    it('UDP send to a local server', async () => {
      await e.denial(net('udp', '127.0.0.1', String(ports.udp)), 'EAFNOSUPPORT')
    })

    it('raw socket', async () => {
      // Unprivileged, the kernel refuses with EPERM (no CAP_NET_RAW): not the filter's errno.
      await e.denial(net('raw'), 'EAFNOSUPPORT', isRoot ? 'OK' : 'differs')
    })

    it('packet socket', async () => {
      await e.denial(net('packet'), 'EAFNOSUPPORT', isRoot ? 'OK' : 'differs')
    })

    it('netlink socket', async () => {
      await e.denial(net('netlink'), 'EAFNOSUPPORT')
    })

    it('AF_UNIX connect to a host daemon (pathname socket)', async () => {
      await e.denial(net('unix', socketPath), 'EAFNOSUPPORT')
    })

    it('AF_UNIX connect to a host daemon (abstract socket)', async () => {
      await e.denial(net('unix', `@${abstractName}`), 'EAFNOSUPPORT')
    })

    it('socketpair(AF_UNIX) still works', async () => {
      await e.denial(net('socketpair'), 'OK')
    })

    // A datagram socketpair's socket takes an address in sendto: it reached a host daemon's
    // pathname socket past the socket(AF_UNIX) rule. Only datagram pairs are refused.
    it("a datagram to a host daemon's pathname socket through a socketpair (SOCK_DGRAM, and SOCK_RAW, which the kernel makes one)", async () => {
      await e.denial(net('unixdgram', dgramPath), 'EAFNOSUPPORT')
      await e.denial(net('unixraw', dgramPath), 'EAFNOSUPPORT')
    })

    // The family is an int to the kernel: high bits set slip past a 64-bit `== 1` (red team).
    it('AF_UNIX with the family\'s high 32 bits set (socket and socketpair)', async () => {
      await e.denial(net('hiunix', socketPath), 'EAFNOSUPPORT')
      await e.denial(net('hidgram', dgramPath), 'EAFNOSUPPORT')
    })

    it('NETLINK_USERSOCK (host processes listening on it)', async () => {
      await e.denial(net('usersock'), 'EAFNOSUPPORT')
    })

    itWhere(noVsock, 'AF_VSOCK (the hypervisor host)', async () => {
      await e.denial(net('vsock'), 'EAFNOSUPPORT')
    })
  })

  // What an orchestrator's network widening grants (issue 13 §5): every host, no host unix socket.
  describe('network inet', () => {
    const inet = { options: { network: 'inet' } }
    it('TCP connect to the local server succeeds', async () => {
      await e.denial(net('tcp', '127.0.0.1', String(ports.v4)), 'OK', 'OK', inet)
    })

    it('AF_UNIX connect to a host daemon (pathname socket) is still refused', async () => {
      await e.denial(net('unix', socketPath), 'EAFNOSUPPORT', 'OK', inet)
    })

    it('AF_UNIX connect to a host daemon (abstract socket) is still refused', async () => {
      await e.denial(net('unix', `@${abstractName}`), 'EAFNOSUPPORT', 'OK', inet)
    })

    it('socketpair(AF_UNIX) still works', async () => {
      await e.denial(net('socketpair'), 'OK', 'OK', inet)
    })

    it("a datagram to a host daemon's pathname socket through a socketpair is still refused (SOCK_DGRAM and SOCK_RAW)", async () => {
      await e.denial(net('unixdgram', dgramPath), 'EAFNOSUPPORT', 'OK', inet)
      await e.denial(net('unixraw', dgramPath), 'EAFNOSUPPORT', 'OK', inet)
    })

    // Red team: with the family's high bits set both reached host daemons under inet.
    it("AF_UNIX with the family's high 32 bits set is still refused (socket to a stream daemon, socketpair to a datagram one)", async () => {
      await e.denial(net('hiunix', socketPath), 'EAFNOSUPPORT', 'OK', inet)
      await e.denial(net('hidgram', dgramPath), 'EAFNOSUPPORT', 'OK', inet)
    })

    it('NETLINK_USERSOCK is refused; NETLINK_ROUTE stays (getaddrinfo reads it)', async () => {
      await e.denial(net('usersock'), 'EAFNOSUPPORT', 'OK', inet)
      await e.denial(net('netlink'), 'OK', 'OK', inet)
    })

    itWhere(noVsock, 'AF_VSOCK is refused: a channel to the hypervisor host, not IP', async () => {
      await e.denial(net('vsock'), 'EAFNOSUPPORT', 'OK', inet)
    })
  })

  describe('network on', () => {
    it('TCP connect to the local server succeeds', async () => {
      await e.denial(net('tcp', '127.0.0.1', String(ports.v4)), 'OK', 'OK', { options: { network: 'on' } })
    })

    it("a datagram to a host daemon's pathname socket through a socketpair goes through (host sockets are part of 'on')", async () => {
      await e.denial(net('unixdgram', dgramPath), 'OK', 'OK', { options: { network: 'on' } })
    })
  })
})
