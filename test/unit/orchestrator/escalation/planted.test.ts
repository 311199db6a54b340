/**
 * What runs with wider rights must not read what the sandbox wrote
 * (issue 13 §7), in the decision flow:
 * - a rules or amendments file inside a write root is protected where the
 *   mode can (namespace mode: added to the protected paths of every
 *   attempt) and refused where it cannot (Landlock mode): fail closed;
 * - a git repository a sandboxed command could have written (its `.git` in
 *   a write root) is never run by allowMeansNoSandbox with wider rights
 *   (the command runs in the profile's sandbox, and a note says why), and
 *   an asked wider attempt names it in `risks`.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { PolicyError } from '../../../../src/errors.js'
import { plantedRepos, runDirs } from '../../../../src/orchestrator/escalation/planted-repos.js'
import { dir, rulesFile, setup } from '../harness.js'

const GIT_STATUS_ALLOWED = 'prefix_rule(pattern=["git", "status"], decision="allow")\n'

function repoIn(ws: string, sub: string): string {
  const git = join(ws, sub, '.git')
  mkdirSync(join(git, 'hooks'), { recursive: true })
  writeFileSync(join(git, 'config'), '[core]\n\tfsmonitor = "touch /tmp/pwned"\n')
  return git
}

describe('rules files inside a write root', () => {
  it('Landlock mode cannot keep one read-only: exec, assess and warmUp refuse (PolicyError), nothing runs', async () => {
    const ws = dir('ws')
    const rules = join(ws, 'project.rules')
    writeFileSync(rules, GIT_STATUS_ALLOWED)
    const { orch, fake } = setup({ rules: [rules] }, undefined, ws)
    await expect(orch.exec({ command: ['ls'] })).rejects.toThrow(PolicyError)
    await expect(orch.exec({ command: ['ls'] })).rejects.toThrow(/lies inside the write root .* use namespace mode/)
    await expect(orch.assess({ command: ['ls'] })).rejects.toThrow(PolicyError)
    await expect(orch.warmUp()).rejects.toThrow(PolicyError)
    expect(fake.runs).toHaveLength(0)
  })

  it('namespace mode: the rules file and a not yet existing amendments file are protected in every attempt', async () => {
    const ws = dir('ws')
    const rules = join(ws, 'project.rules')
    writeFileSync(rules, '')
    const amend = join(ws, '.cordon', 'amend.rules')
    const { orch, fake } = setup({ rules: [rules], amendRules: amend, sandbox: { cwd: ws, mode: 'namespaces' } }, undefined, ws)
    const o = await orch.exec({ command: ['touch', join(dir('out'), 'x')] })
    expect(o.attempts).toHaveLength(2)
    expect(existsSync(amend)).toBe(true) // created empty: bound as a file, not a placeholder directory
    for (const run of fake.runs) expect(run.options.protected).toEqual(expect.arrayContaining([rules, amend]))
  })

  it('a rules file outside the write roots is used as it is', async () => {
    const { orch } = setup({ rules: [rulesFile(GIT_STATUS_ALLOWED)] })
    expect((await orch.exec({ command: ['git', 'status'] })).approval?.source).toBe('policy')
  })
})

describe('repositories a sandboxed command could have written', () => {
  it('allowMeansNoSandbox: a git status in a repository in the workspace runs in the sandbox, not widened, and says why', async () => {
    const ws = dir('ws')
    const git = repoIn(ws, 'sub')
    const { orch, fake } = setup({ rules: [rulesFile(GIT_STATUS_ALLOWED)], allowMeansNoSandbox: true, allowUnsandboxed: true }, undefined, ws)
    const o = await orch.exec({ command: ['git', 'status'], cwd: 'sub' })
    expect(o.approval).toMatchObject({ source: 'policy', decision: 'approved' })
    expect(o.attempts[0]!.sandbox.widening).toBeUndefined()
    expect(fake.runs[0]!.options.write ?? []).not.toContain('/')
    expect(o.notes.join('\n')).toMatch(new RegExp(`allowMeansNoSandbox: runs in the profile's sandbox instead, because git repository "${git}" lies in a write root`))
  })

  it('the same rule with no repository within reach still runs widened (Codex semantics)', async () => {
    const { orch } = setup({ rules: [rulesFile(GIT_STATUS_ALLOWED)], allowMeansNoSandbox: true })
    const o = await orch.exec({ command: ['git', 'status'] })
    expect(o.attempts[0]!.sandbox.widening).toMatchObject({ full: true })
  })

  it('a repository below the cwd (a script can cd into it), and a .git file pointing into the workspace, count too', async () => {
    const ws = dir('ws')
    repoIn(ws, 'deep/er/sub')
    const outside = dir('wt')
    writeFileSync(join(outside, '.git'), `gitdir: ${join(ws, 'deep/er/sub/.git')}\n`)
    expect(plantedRepos({ dirs: [ws], writeRoots: [ws] }).repos).toEqual([join(ws, 'deep/er/sub/.git')])
    expect(plantedRepos({ dirs: [outside], writeRoots: [ws] }).repos).toEqual([join(outside, '.git')])
    expect(plantedRepos({ dirs: [outside], writeRoots: [dir('elsewhere')] }).repos).toEqual([])
  })

  it('the directories a script changes to are looked at (cd, git -C)', () => {
    expect(runDirs('/w', [['cd', 'a'], ['git', '-C', 'b', 'status'], ['cd', '../c']])).toEqual(['/w', '/w/a', '/w/a/b', '/w/c'])
  })

  it('an asked require_escalated names the repositories in risks; a session approval without them does not cover them', async () => {
    const ws = dir('ws')
    const { orch, asked, answer } = setup({}, undefined, ws)
    answer.mockReturnValue('approved_for_session')
    await orch.exec({ command: ['make', 'deploy'], sandboxPermissions: 'require_escalated' })
    expect(asked[0]!.risks).toBeUndefined()
    const git = repoIn(ws, '.')
    const o = await orch.exec({ command: ['make', 'deploy'], sandboxPermissions: 'require_escalated' })
    expect(o.approval?.source).toBe('user')
    expect(asked[1]!.risks).toEqual([expect.stringContaining(`git repository "${git}" lies in a write root`)])
  })

  it('a retry names them too', async () => {
    const ws = dir('ws')
    const git = repoIn(ws, '.')
    const { orch, asked } = setup({}, undefined, ws)
    await orch.exec({ command: ['touch', join(dir('out'), 'x')] })
    expect(asked[0]!.kind).toBe('escalation')
    expect(asked[0]!.risks).toEqual([expect.stringContaining(`git repository "${git}" lies in a write root`)])
  })
})
