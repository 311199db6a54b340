import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parsePolicy } from '../../../../src/exec-policy/index.js'
import type { NetworkAsk } from '../../../../src/network/proxy/gate.js'
import type { ApprovalDecision, ApprovalRequest } from '../../../../src/orchestrator/approval/approval.js'
import type { Deciders } from '../../../../src/orchestrator/approval/decision-flow.js'
import { NetworkApprovals } from '../../../../src/orchestrator/approval/network-approval.js'
import { removeTempDirs, tempDir } from '../../../helpers/temp.js'

afterAll(removeTempDirs)

function setup(answer: ApprovalDecision, mode: 'on-request' | 'never' = 'on-request', amendFile?: string) {
  const asked: ApprovalRequest[] = []
  const deciders: Deciders = { permissionHooks: [], hookTimeoutMs: 1000, onApproval: (r) => (asked.push(r), answer), reviewer: undefined, strictReview: false, approvalTimeoutMs: undefined }
  const n = new NetworkApprovals(deciders, { mode, reject: new Set() }, amendFile)
  const rules = parsePolicy('network_rule(host="pypi.org", protocol="https", decision="allow")', 'a.rules').networkRules
  const options = n.sandboxOptions({ profile: 'workspace-write', network: { allow: ['registry.npmjs.org'] } }, { command: ['npm', 'install'], cwd: '/w', rules, signal: new AbortController().signal })
  const ask = (q: Partial<NetworkAsk> = {}) => options.onNetworkRequest!({ host: 'registry.test', port: 443, protocol: 'https', reason: 'not in the allowlist', ...q })
  return { asked, options, ask }
}

describe('network approvals of the orchestrator', () => {
  it('leaves options without an allowlist untouched (no proxy to serve)', () => {
    const n = new NetworkApprovals({ permissionHooks: [], hookTimeoutMs: 1, onApproval: undefined, reviewer: undefined, strictReview: false, approvalTimeoutMs: undefined }, { mode: 'on-request', reject: new Set() }, undefined)
    const o = { profile: 'workspace-write', network: 'inet' as const }
    expect(n.sandboxOptions(o, { command: ['ls'], cwd: '/', rules: [], signal: new AbortController().signal })).toBe(o)
  })

  it("hands the rules files' network_rules to the sandbox", () => {
    expect(setup('denied').options.networkRules).toEqual([expect.objectContaining({ host: 'pypi.org', decision: 'allow' })])
  })

  it('asks the approver with a network request naming host and port; a session answer is not asked again for that host:port', async () => {
    const { asked, ask } = setup('approved_for_session')
    expect(await ask()).toBe('approved_for_session')
    expect(await ask()).toBe('approved_for_session')
    expect(asked).toHaveLength(1)
    expect(asked[0]).toMatchObject({ kind: 'network', promptClass: 'network', command: ['npm', 'install'], network: { host: 'registry.test', protocol: 'https', namedBy: 'command' } })
    expect(asked[0]!.reason).toMatch(/registry\.test:443/)
    await ask({ port: 80 })
    expect(asked).toHaveLength(2) // another port is another question
  })

  it('a network amendment is appended to the amendments file as a network_rule and covers the host', async () => {
    const file = join(tempDir('netamend-'), 'amend.rules')
    const { asked, ask, options } = setup({ type: 'network_amendment', host: 'registry.test', action: 'allow' }, 'on-request', file)
    expect(await ask()).toEqual({ type: 'network_amendment', action: 'allow' })
    await options.persistNetworkAnswer!('registry.test', 'https', 'allow')
    expect(readFileSync(file, 'utf8')).toBe('network_rule(host="registry.test", protocol="https", decision="allow")\n')
    expect(await ask({ port: 8443 })).toBe('approved_for_session')
    expect(asked).toHaveLength(1)
  })

  it('without a rules file an amendment cannot be persisted (the proxy then refuses)', async () => {
    await expect(setup('denied').options.persistNetworkAnswer!('x.test', 'https', 'allow')).rejects.toThrow(/no rules file to amend/)
  })

  it("approval mode 'never' refuses without asking", async () => {
    const { asked, ask } = setup('approved', 'never')
    expect(await ask()).toBe('denied')
    expect(asked).toHaveLength(0)
  })
})

describe('network approvals through createOrchestrator', () => {
  it("an allowlist sandbox gets the rules files' network_rules and an approver that asks the user with kind network", async () => {
    const { setup, rulesFile, dir } = await import('../harness.js')
    const rules = rulesFile('network_rule(host="pypi.org", protocol="https", decision="forbidden", justification="use the mirror")\n')
    const ws = dir('ws')
    const { orch, fake, asked, answer } = setup({ rules: [rules], sandbox: { cwd: ws, profile: { filesystem: { write: ['${cwd}'] }, network: { allow: ['registry.npmjs.org'] } } } }, undefined, ws)
    answer.mockReturnValue('approved_for_session')
    const o = await orch.exec({ command: ['ls'] })
    expect(o.status).toBe('completed')
    const options = fake.runs[0]!.options
    expect(options.networkRules).toEqual([expect.objectContaining({ host: 'pypi.org', decision: 'forbidden', justification: 'use the mirror' })])
    expect(await options.onNetworkRequest!({ host: 'files.test', port: 443, protocol: 'https', reason: 'not in the allowlist' })).toBe('approved_for_session')
    expect(asked.at(-1)).toMatchObject({ kind: 'network', promptClass: 'network', command: ['ls'], cwd: ws })
    // The session keeps it: a second sandbox of this orchestrator is not asked again.
    await orch.exec({ command: ['ls'] })
    const before = asked.length
    expect(await fake.runs[1]!.options.onNetworkRequest!({ host: 'files.test', port: 443, protocol: 'https', reason: '' })).toBe('approved_for_session')
    expect(asked.length).toBe(before)
  })
})
