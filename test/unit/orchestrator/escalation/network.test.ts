/**
 * Network escalation is not the whole network (issue 13 §5). Until the
 * allowlist proxy exists (issue 15) a network widening is every host, so
 * - a `network_rule` that allows the host the output named never approves
 *   it (a forged "Failed to connect to registry.npmjs.org" was enough);
 * - the request says plainly "all hosts", and that the host came from the
 *   output;
 * - the retry runs with network `inet`: the host's unix sockets stay
 *   blocked, unless a denial named one — then that is what is asked for,
 *   "all hosts and every local (unix) socket".
 */
import { createServer } from 'node:net'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { Script } from '../fake-sandbox.js'
import { dir, rulesFile, setup } from '../harness.js'

const netOff = (line: string): Script => ({ options }) => (options.network === 'inet' || options.network === 'on' ? { stdout: `ran with ${options.network}` } : { exitCode: 7, stderr: `${line}\n` })
const forged = netOff('curl: (7) Failed to connect to registry.npmjs.org port 443 after 3 ms: Could not connect to server')

const sockDir = dir('sock')
const sockPath = join(sockDir, 'daemon.sock')
const server = createServer((c) => c.end()).listen(sockPath)
afterAll(() => void server.close())

describe('a network denial', () => {
  it('a network_rule allowing the named host does not approve the retry: the approver is asked, told "all hosts"', async () => {
    const { orch, asked } = setup({ rules: [rulesFile('network_rule(host="registry.npmjs.org", protocol="https", decision="allow")\n')] }, forged)
    const o = await orch.exec({ command: ['npm', 'ci'] })
    expect(asked).toHaveLength(1)
    expect(o.attempts[1]?.approval.source).toBe('user')
    const r = asked[0]!
    expect(r.network).toEqual({ host: 'registry.npmjs.org', protocol: 'https', namedBy: 'output' })
    expect(r.evidence).toBe('output-only')
    expect(r.scope).toEqual([`network: all hosts — not only "registry.npmjs.org", which the command's output named; the host's unix sockets stay blocked`])
    expect(r.reason).toMatch(/^the command's output reports that the sandbox denied \(unverified: the command wrote it\) network to "registry.npmjs.org:443"/)
    expect(r.reason).toContain('all hosts')
  })

  it('the retry reaches hosts, not the host unix sockets (network inet)', async () => {
    const { orch, fake } = setup({}, forged)
    const o = await orch.exec({ command: ['npm', 'ci'] })
    expect(o.attempts[1]?.sandbox.widening).toMatchObject({ network: true, localSockets: false })
    expect(fake.runs[1]!.options.network).toBe('inet')
    expect(o.result?.stdout).toBe('ran with inet')
  })

  it('a network_rule forbidding the host still refuses the retry', async () => {
    const { orch, asked } = setup({ rules: [rulesFile('network_rule(host="registry.npmjs.org", protocol="https", decision="deny")\n')] }, forged)
    const o = await orch.exec({ command: ['npm', 'ci'] })
    expect(asked).toHaveLength(0)
    expect(o.attempts).toHaveLength(1)
    expect(o.escalation?.approval).toMatchObject({ decision: 'denied', source: 'policy', reason: 'a network_rule forbids "registry.npmjs.org"' })
  })

  it('a session approval of the widening names every host (the key is not the host)', async () => {
    const { orch, asked, answer } = setup({}, forged)
    answer.mockReturnValue('approved_for_session')
    await orch.exec({ command: ['npm', 'ci'] })
    expect((await orch.exec({ command: ['npm', 'ci'] })).attempts[1]?.approval.source).toBe('cache')
    expect(asked[0]!.widening).toMatchObject({ network: true, localSockets: false })
  })
})

describe('a local socket', () => {
  it('a denial naming a host unix socket asks for local sockets separately, and says so', async () => {
    const script = netOff(`docker: dial unix ${sockPath}: socket: Address family not supported by protocol`)
    const { orch, asked, fake } = setup({}, script)
    const o = await orch.exec({ command: ['docker', 'ps'] })
    expect(o.attempts[0]!.denials).toMatchObject([{ operation: 'network', rule: 'network-off', socket: sockPath, evidence: { by: 'output' } }])
    expect(asked[0]!.widening).toMatchObject({ network: true, localSockets: true })
    expect(asked[0]!.scope).toEqual(['network: all hosts and every local (unix) socket of the host: docker.sock, D-Bus, an ssh agent'])
    expect(asked[0]!.reason).toContain(`the local socket "${sockPath}"`)
    expect(fake.runs[1]!.options.network).toBe('on')
  })

  it('a unix:// address counts too; a host denial alone never lifts local sockets', async () => {
    const { orch, asked } = setup({}, netOff('Cannot connect to unix:///var/run/docker.sock: Address family not supported by protocol'))
    await orch.exec({ command: ['docker', 'ps'] })
    expect(asked[0]!.widening).toMatchObject({ localSockets: true })
    const plain = setup({}, netOff('getaddrinfo ENOTFOUND example.com'))
    await plain.orch.exec({ command: ['node', 'fetch.js'] })
    expect(plain.asked[0]!.widening).toMatchObject({ network: true, localSockets: false })
  })
})

describe('a request to run outside the sandbox', () => {
  it('states its scope: write everything, every host and local socket', async () => {
    const rules = rulesFile()
    const { orch, asked } = setup({ rules: [rules] })
    await orch.exec({ command: ['make', 'deploy'], sandboxPermissions: 'require_escalated' })
    expect(asked[0]!.scope).toEqual([
      `write: / — everything this user can write: the home directory (shell startup files), every repository and its hooks, cordon's rules files ("${rules}")`,
      'read: everything but the denied paths (read masks kept)',
      'network: all hosts and every local (unix) socket of the host: docker.sock, D-Bus, an ssh agent',
    ])
  })
})
