/**
 * Every "no" is a no (issue 13 §4): whether an attempt runs is the
 * answer's alone. An amendment that cannot be written — a host taken from
 * the command's own output that is no host, an amendments file that cannot
 * be written — never turns a denial into a run, and is reported.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Script } from '../fake-sandbox.js'
import { dir, rulesFile, setup } from '../harness.js'

/** The network is off in attempt 1: curl "fails" to reach a host the output names (forged: no host at all). */
const forgedHost: Script = ({ options }) =>
  options.network === 'off' || options.network === undefined ? { exitCode: 7, stderr: 'curl: (7) Failed to connect to evil*host port 443 after 0 ms\n' } : { stdout: 'ran' }

/** A path under a regular file: mkdir and open fail (ENOTDIR), whoever runs the test (root included). */
function unwritableAmendFile(): string {
  const file = join(dir('blocked'), 'not-a-dir')
  writeFileSync(file, '')
  return join(file, 'amend.rules')
}

describe('a network amendment that cannot be written', () => {
  it('a deny answer naming a host that is no host: the retry does not run, and the failure is reported', async () => {
    const { orch, asked, answer, fake } = setup({ rules: [rulesFile()] }, forgedHost)
    answer.mockImplementation((r) => ({ type: 'network_amendment', host: r.network?.host ?? 'x', action: 'deny' }))
    const o = await orch.exec({ command: ['curl', 'https://example.invalid/'] })
    expect(asked.map((r) => r.kind)).toEqual(['escalation'])
    expect(asked[0]!.network?.host).toBe('evil*host')
    expect(fake.runs).toHaveLength(1)
    expect(o.attempts).toHaveLength(1)
    expect(o.escalation).toMatchObject({ attempted: false, approval: { decision: 'denied', source: 'user' } })
    expect(o.notes.join('\n')).toMatch(/amendment not written .*wildcards.*the denial stands/)
  })

  it('an allow answer whose rule cannot be written runs once, and says so', async () => {
    const { orch, answer } = setup({ rules: [rulesFile()] }, forgedHost)
    answer.mockImplementation((r) => ({ type: 'network_amendment', host: r.network?.host ?? 'x', action: 'allow' }))
    const o = await orch.exec({ command: ['curl', 'https://example.invalid/'] })
    expect(o.attempts).toHaveLength(2)
    expect(o.amendments).toHaveLength(0)
    expect(o.notes.join('\n')).toMatch(/amendment not written .*applies to this request only/)
  })
})

describe('an amendments file that cannot be written (first approval)', () => {
  it('a network amendment that denies: nothing runs, status denied, the failure reported', async () => {
    const { orch, answer, fake } = setup({ amendRules: unwritableAmendFile(), approvalMode: 'untrusted' })
    answer.mockReturnValue({ type: 'network_amendment', host: 'registry.npmjs.org', action: 'deny' })
    const o = await orch.exec({ command: ['make', 'all'] })
    expect(o.status).toBe('denied')
    expect(o.approval).toMatchObject({ decision: 'denied', source: 'user' })
    expect(fake.runs).toHaveLength(0)
    expect(o.notes.join('\n')).toMatch(/amendment not written .*the denial stands/)
  })

  it('approved_with_amendment: runs this once, reports that no rule was written, and asks again next time', async () => {
    const { orch, answer, asked, fake } = setup({ amendRules: unwritableAmendFile(), approvalMode: 'untrusted' })
    answer.mockReturnValue({ type: 'approved_with_amendment', pattern: ['make', 'all'] })
    const o = await orch.exec({ command: ['make', 'all'] })
    expect(o.status).toBe('completed')
    expect(fake.runs).toHaveLength(1)
    expect(o.amendments).toHaveLength(0)
    expect(o.notes.join('\n')).toMatch(/amendment not written .*applies to this request only/)
    await orch.exec({ command: ['make', 'all'] })
    expect(asked).toHaveLength(2)
  })
})
