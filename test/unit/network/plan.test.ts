/**
 * How a network allowlist reaches the launch: the environment, the
 * launcher plan (Landlock port rule, seccomp rules, the forwarder), bwrap's
 * arguments, and the report. Plus the SNI reader against a real ClientHello.
 */
import { createServer, type AddressInfo } from 'node:net'
import { connect as tlsConnect } from 'node:tls'
import { describe, expect, it } from 'vitest'
import { proxyEnv } from '../../../src/network/proxy-env.js'
import { parseClientHelloSni } from '../../../src/network/proxy/sni.js'
import { launcherTemplate, metadataProgram, proxyMissing, seccompProgram } from '../../../src/platform/linux/landlock/plan.js'
import { bwrapArgs } from '../../../src/platform/linux/namespaces/bwrap-args.js'
import type { NativeProbe } from '../../../src/native/binding.js'
import type { ResolvedPolicy } from '../../../src/profile/resolve.js'

const policy = (p: Partial<ResolvedPolicy>): ResolvedPolicy => ({
  profileName: 't', cwd: '/', tmpdir: '/tmp', readAll: true, readRoots: ['/'], writeRoots: [], denyRead: [], denyGlobs: [],
  denyGlobsTruncated: false, protectedPaths: [], network: 'proxy', env: {}, envDropped: [], limits: {}, unsandboxed: false, ...p,
})
const probe = { landlockAbi: 7, seccomp: true } as NativeProbe

describe('proxyEnv', () => {
  it('points the usual and the tool-specific variables at the proxy and clears NO_PROXY', () => {
    const env = proxyEnv(4567, { PATH: '/bin', NO_PROXY: '*', no_proxy: 'internal' })
    expect(env).toMatchObject({
      PATH: '/bin',
      HTTP_PROXY: 'http://127.0.0.1:4567', HTTPS_PROXY: 'http://127.0.0.1:4567', http_proxy: 'http://127.0.0.1:4567', https_proxy: 'http://127.0.0.1:4567',
      ALL_PROXY: 'socks5h://127.0.0.1:4567', all_proxy: 'socks5h://127.0.0.1:4567',
      npm_config_proxy: 'http://127.0.0.1:4567', npm_config_https_proxy: 'http://127.0.0.1:4567',
      YARN_HTTP_PROXY: 'http://127.0.0.1:4567', YARN_HTTPS_PROXY: 'http://127.0.0.1:4567', PIP_PROXY: 'http://127.0.0.1:4567',
      GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'http.proxy', GIT_CONFIG_VALUE_0: 'http://127.0.0.1:4567',
    })
    expect(env).not.toHaveProperty('NO_PROXY')
    expect(env).not.toHaveProperty('no_proxy')
  })

  it('carries the credential in every proxy URL when there is one', () => {
    const env = proxyEnv(9, {}, 'T0k')
    expect(env).toMatchObject({ HTTP_PROXY: 'http://cordon:T0k@127.0.0.1:9', ALL_PROXY: 'socks5h://cordon:T0k@127.0.0.1:9', GIT_CONFIG_VALUE_0: 'http://cordon:T0k@127.0.0.1:9', PIP_PROXY: 'http://cordon:T0k@127.0.0.1:9' })
  })

  it("adds git's http.proxy after the entries the environment already has", () => {
    const env = proxyEnv(1, { GIT_CONFIG_COUNT: '2', GIT_CONFIG_KEY_0: 'a.b', GIT_CONFIG_VALUE_0: 'x', GIT_CONFIG_KEY_1: 'c.d', GIT_CONFIG_VALUE_1: 'y' })
    expect(env).toMatchObject({ GIT_CONFIG_COUNT: '3', GIT_CONFIG_KEY_0: 'a.b', GIT_CONFIG_KEY_2: 'http.proxy', GIT_CONFIG_VALUE_2: 'http://127.0.0.1:1' })
  })
})

describe('the launch of an allowlisted command', () => {
  it('Landlock allows TCP connect to the proxy port only (no networkOff, no bind rule)', () => {
    const t = launcherTemplate({ policy: policy({ proxyPort: 4567 }), probe, explicit: new Set() }, [])
    expect(t.landlock).toMatchObject({ networkOff: false, connectPorts: [4567], scopeAbstractUnix: true })
  })

  it('the seccomp program carries the net-proxy rules on top of network inet', () => {
    expect(seccompProgram('proxy').rules).toBeGreaterThan(seccompProgram('inet').rules + 10)
  })

  it('Landlock mode: with seccomp the supervisor checks addresses (nothing missing); without, the port-only limit is reported; no ABI 4 or no seccomp refuses explicitly', () => {
    expect(proxyMissing(7, true)).toEqual([])
    expect(proxyMissing(3, true).map((m) => [m.protection, m.explicit])).toEqual([['network', true]])
    expect(proxyMissing(7, false).map((m) => [m.protection, m.explicit])).toEqual([['network', true], ['network-port-only', false]])
    expect(proxyMissing(null, false).filter((m) => m.explicit)).toHaveLength(2)
  })

  it("the supervisor's filter carries connect only with an allowlist", () => {
    expect(metadataProgram('proxy').rules).toBe(metadataProgram('off').rules + 1)
    expect(metadataProgram('inet').rules).toBe(metadataProgram('off').rules)
  })

  it('namespace mode: a network namespace of its own and the proxy socket bound read-only after the mounts', () => {
    const s = bwrapArgs({ features: { disableUserns: true, cgroupTry: false, bindFd: false }, networkOff: true, ops: [{ kind: 'tmpfs', path: '/tmp' }], launcher: '/x/l', proxySocket: '/tmp/cordon-net-x/proxy.sock' }).join(' ')
    expect(s).toContain('--unshare-net')
    expect(s).toContain('--tmpfs /tmp --ro-bind /tmp/cordon-net-x/proxy.sock /tmp/cordon-net-x/proxy.sock -- /x/l')
  })
})

describe('parseClientHelloSni', () => {
  async function clientHello(servername: string): Promise<Buffer> {
    return new Promise((resolve) => {
      const server = createServer((s) =>
        s.once('data', (d) => {
          resolve(d)
          s.destroy()
          server.close()
        }),
      )
      server.listen(0, '127.0.0.1', () => {
        tlsConnect({ port: (server.address() as AddressInfo).port, host: '127.0.0.1', servername, rejectUnauthorized: false }).on('error', () => {})
      })
    })
  }

  it("reads the server name of node's own ClientHello, and says incomplete for any prefix of it", async () => {
    const hello = await clientHello('registry.example.org')
    expect(parseClientHelloSni(hello)).toEqual({ kind: 'hello', name: 'registry.example.org' })
    for (const n of [1, 5, 40, hello.length - 1]) expect(parseClientHelloSni(hello.subarray(0, n))).toEqual({ kind: 'incomplete' })
  })

  it('is not TLS for other protocols, and finds no name in a hello without one', () => {
    expect(parseClientHelloSni(Buffer.from('GET / HTTP/1.1\r\n'))).toEqual({ kind: 'not-tls' })
    expect(parseClientHelloSni(Buffer.from('SSH-2.0-OpenSSH_9.6\r\n'))).toEqual({ kind: 'not-tls' })
    // A minimal ClientHello: version, random, empty session id, one suite, null compression, no extensions.
    const body = Buffer.concat([Buffer.from([3, 3]), Buffer.alloc(32), Buffer.from([0, 0, 2, 0x13, 0x01, 1, 0])])
    const hs = Buffer.concat([Buffer.from([1, 0, 0, body.length]), body])
    const record = Buffer.concat([Buffer.from([0x16, 3, 1, 0, hs.length]), hs])
    expect(parseClientHelloSni(record)).toEqual({ kind: 'hello', name: undefined })
  })

  it('a truncated inner length never reads past the record', () => {
    const hs = Buffer.from([1, 0, 0, 40, 3, 3, ...Buffer.alloc(32), 0xff])
    expect(parseClientHelloSni(Buffer.concat([Buffer.from([0x16, 3, 1, 0, hs.length]), hs]))).toEqual({ kind: 'hello', name: undefined })
  })
})
