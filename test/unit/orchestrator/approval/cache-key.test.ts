/**
 * One cache key for what actually runs (issue 13 §3): a session approval
 * answers only for the same command (operators included), in the same
 * directory, with the same stdin and environment additions, at the same
 * permission level, on a terminal or not; the approver is shown the stdin,
 * the environment and an interactive terminal; a PreToolUse hook's
 * allow does not approve `require_escalated`.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ToolRuntime } from '../../../../src/orchestrator/index.js'
import type { SandboxPermissions } from '../../../../src/orchestrator/approval/requirement.js'
import type { Script } from '../fake-sandbox.js'
import { dir, setup } from '../harness.js'

/** A command on an interactive terminal or not (unified exec's `tty`), as a runtime describes it. */
interface TermRequest {
  readonly command: readonly string[]
  readonly interactive: boolean
  readonly sandboxPermissions?: SandboxPermissions
}

const termRuntime: ToolRuntime<TermRequest, null> = {
  name: 'term',
  describe: (req) => ({ command: req.command, summary: req.command.join(' '), ...(req.interactive ? { interactive: true } : {}), ...(req.sandboxPermissions ? { sandboxPermissions: req.sandboxPermissions } : {}) }),
  async attempt(_req, handle, ctx) {
    return { output: null, result: await handle.sandbox.run(ctx.command, { signal: ctx.signal }) }
  },
}

describe('session approvals answer only for what runs', () => {
  it('a script that differs only in its operators is asked again (&& is not ||)', async () => {
    const { orch, asked, answer } = setup()
    answer.mockReturnValue('approved_for_session')
    await orch.exec({ command: ['bash', '-lc', 'cd dist && rm -rf src'] })
    const other = await orch.exec({ command: ['bash', '-lc', 'cd dist || rm -rf src'] })
    expect(other.approval?.source).toBe('user')
    expect(asked.map((r) => r.command[2])).toEqual(['cd dist && rm -rf src', 'cd dist || rm -rf src'])
    expect((await orch.exec({ command: ['bash', '-lc', 'cd dist && rm -rf src'] })).approval?.source).toBe('cache')
  })

  it('one plain command keys the same however it is wrapped (bash -lc "make all" ≡ make all)', async () => {
    const { orch, answer } = setup({ approvalMode: 'untrusted' })
    answer.mockReturnValue('approved_for_session')
    await orch.exec({ command: ['bash', '-lc', 'make all'] })
    expect((await orch.exec({ command: ['make', 'all'] })).approval?.source).toBe('cache')
  })

  it('stdin is shown to the approver and keyed: another stdin is asked again', async () => {
    const { orch, asked, answer } = setup({ approvalMode: 'untrusted' })
    answer.mockReturnValue('approved_for_session')
    await orch.exec({ command: ['bash'], input: 'echo hello\n' })
    expect(asked[0]!.stdin).toEqual({ text: 'echo hello\n', bytes: 11, sha256: expect.stringMatching(/^[0-9a-f]{64}$/), truncated: false })
    const evil = await orch.exec({ command: ['bash'], input: 'rm -rf src\n' })
    expect(evil.approval?.source).toBe('user')
    expect(asked[1]!.stdin?.text).toBe('rm -rf src\n')
    expect((await orch.exec({ command: ['bash'] })).approval?.source).toBe('user') // no stdin is another request too
    expect((await orch.exec({ command: ['bash'], input: 'echo hello\n' })).approval?.source).toBe('cache')
  })

  it('an interactive terminal is shown and keyed: approving the command does not approve it on a terminal whose input nobody reviews', async () => {
    const { orch, asked, answer } = setup({ approvalMode: 'untrusted' })
    answer.mockReturnValue('approved_for_session')
    const less = ['/bin/sh', '-c', 'less notes.txt']
    await orch.run(termRuntime, { command: less, interactive: false })
    expect(asked[0]!.interactive).toBeUndefined()
    const onTerminal = await orch.run(termRuntime, { command: less, interactive: true })
    expect(onTerminal.approval?.source).toBe('user')
    expect(asked[1]!.interactive).toBe(true)
    expect(asked[1]!.reason).toMatch(/interactive terminal: what is typed into it later is not reviewed by the policy or an approver/)
    expect((await orch.run(termRuntime, { command: less, interactive: true })).approval?.source).toBe('cache')
    // Escalated: the same, with the widening.
    await orch.run(termRuntime, { command: less, interactive: true, sandboxPermissions: 'require_escalated' })
    expect(asked[2]).toMatchObject({ promptClass: 'escalation', interactive: true, reason: expect.stringMatching(/interactive terminal/) })
  })

  it('a long stdin is shown truncated, with its size and digest', async () => {
    const { orch, asked } = setup({ approvalMode: 'untrusted' })
    await orch.exec({ command: ['bash'], input: 'x'.repeat(100_000) })
    expect(asked[0]!.stdin).toMatchObject({ bytes: 100_000, truncated: true })
    expect(asked[0]!.stdin?.text).toHaveLength(64 * 1024)
  })

  it('environment additions are shown and keyed', async () => {
    const { orch, asked, answer } = setup({ approvalMode: 'untrusted' })
    answer.mockReturnValue('approved_for_session')
    await orch.exec({ command: ['make', 'all'] })
    const withEnv = await orch.exec({ command: ['make', 'all'], env: { MAKEFLAGS: '--eval=$(shell rm -rf src)' } })
    expect(withEnv.approval?.source).toBe('user')
    expect(asked[1]!.env).toEqual({ MAKEFLAGS: '--eval=$(shell rm -rf src)' })
    // The same additions in another order are the same request.
    await orch.exec({ command: ['make', 'all'], env: { A: '1', B: '2' } })
    expect((await orch.exec({ command: ['make', 'all'], env: { B: '2', A: '1' } })).approval?.source).toBe('cache')
  })

  it('another directory is asked again', async () => {
    const { orch, ws, answer } = setup({ approvalMode: 'untrusted' })
    mkdirSync(join(ws, 'sub'))
    answer.mockReturnValue('approved_for_session')
    await orch.exec({ command: ['make', 'all'] })
    expect((await orch.exec({ command: ['make', 'all'], cwd: 'sub' })).approval?.source).toBe('user')
  })

  it('an approval of one widening never covers another (a retry that widens a different directory is asked)', async () => {
    const a = dir('out-a')
    const b = dir('out-b')
    let target = a
    // The same command is denied in a, then (next exec) in b.
    const script: Script = ({ options }) => ((options.write ?? []).includes(target) ? {} : { exitCode: 1, stderr: `make: cannot create '${target}/x': Permission denied\n` })
    const { orch, asked, answer } = setup({}, script)
    answer.mockReturnValue('approved_for_session')
    await orch.exec({ command: ['make', 'out'] })
    target = b
    const second = await orch.exec({ command: ['make', 'out'] })
    expect(second.attempts[1]?.approval.source).toBe('user')
    expect(asked.map((r) => r.widening?.write)).toEqual([[a], [b]])
  })
})

describe('PreToolUse allow', () => {
  it('skips the prompt in the sandbox, but does not approve running it outside the sandbox', async () => {
    const { orch, asked, fake } = setup({ approvalMode: 'untrusted', hooks: { preToolUse: [() => ({ decision: 'allow', reason: 'looks fine' })] } })
    expect((await orch.exec({ command: ['make', 'all'] })).approval).toMatchObject({ source: 'hook', decision: 'approved' })
    const escalated = await orch.exec({ command: ['make', 'all'], sandboxPermissions: 'require_escalated' })
    expect(escalated.approval?.source).toBe('user')
    expect(asked.map((r) => r.promptClass)).toEqual(['escalation'])
    expect(escalated.notes.join(' ')).toMatch(/PreToolUse hook allowed the command; running it with wider rights .* is still asked/)
    expect(fake.runs).toHaveLength(2)
  })

  it('a denied escalation after a hook allow runs nothing', async () => {
    const { orch, answer, fake } = setup({ hooks: { preToolUse: [() => ({ decision: 'allow' })] } })
    answer.mockReturnValue('denied')
    const o = await orch.exec({ command: ['make', 'all'], sandboxPermissions: 'require_escalated' })
    expect(o.status).toBe('denied')
    expect(fake.runs).toHaveLength(0)
  })
})
