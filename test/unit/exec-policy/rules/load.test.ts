import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { PolicyError } from '../../../../src/errors.js'
import { createExecPolicy, loadPolicy, matchRules, parsePolicy } from '../../../../src/exec-policy/index.js'
import { removeTempDirs, tempDir } from '../../../helpers/temp.js'

afterAll(removeTempDirs)

const fixture = (name: string): string => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url))

async function loadError(files: string[]): Promise<PolicyError> {
  const err: unknown = await loadPolicy(files).then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(PolicyError)
  return err as PolicyError
}

describe('fail closed', () => {
  it('a missing file is an error naming the file, never an empty policy', async () => {
    const missing = join(tmpdir(), 'cordon-no-such-dir', 'default.rules')
    const err = await loadError([fixture('default.rules'), missing])
    expect(err.where).toBe(`${missing}:1:1`)
    expect(err.message).toContain('ENOENT')
    expect(err.code).toBe('E_POLICY')
  })

  it('a directory is not a rules file', async () => {
    const dir = tempDir('cordon-rules-')
    expect((await loadError([dir])).message).toContain('EISDIR')
  })

  it('a syntax error names file:line:col', async () => {
    const file = fixture('syntax-error.rules')
    const err = await loadError([fixture('default.rules'), file])
    expect(err.where).toBe(`${file}:4:5`)
    expect(err.message).toBe(`${file}:4:5: expected ')', found 'justification'`)
  })

  it('a wrong type names file:line:col', async () => {
    const file = fixture('bad-type.rules')
    expect((await loadError([file])).where).toBe(`${file}:2:42`)
  })

  it('createExecPolicy fails the same way', async () => {
    await expect(createExecPolicy({ rules: [fixture('bad-type.rules')] })).rejects.toBeInstanceOf(PolicyError)
    await expect(createExecPolicy({ rules: [42 as unknown as string] })).rejects.toBeInstanceOf(PolicyError)
  })

  it('an empty file is a valid, empty policy', async () => {
    const dir = tempDir('cordon-rules-')
    writeFileSync(join(dir, 'empty.rules'), '# nothing yet\n')
    expect((await loadPolicy([join(dir, 'empty.rules')])).rulesByProgram.size).toBe(0)
  })
})

describe('inline examples are checked at load time', () => {
  it('a match example the rule does not match is an error at the example', () => {
    const text = 'prefix_rule(\n    pattern = ["gh", "pr", "view"],\n    match = [\n        "gh pr view 1",\n        "gh pr --repo x view 1",\n    ],\n)'
    expect(() => parsePolicy(text, 'ex.rules')).toThrow('ex.rules:5:9: match example `gh pr --repo x view 1` does not match')
  })

  it('a not_match example the rule does match is an error at the example', () => {
    const text = 'prefix_rule(pattern = ["git", ["push", "fetch"]], not_match = [["git", "status"], ["git", "fetch", "-p"]])'
    expect(() => parsePolicy(text, 'ex.rules')).toThrow('ex.rules:1:83: not_match example `git fetch -p` matches')
  })

  it('examples see host_executable declared later in the same file', () => {
    const ok = 'prefix_rule(pattern = ["git"], match = ["/usr/bin/git status"])\nhost_executable(name = "git", paths = ["/usr/bin/git"])'
    expect(() => parsePolicy(ok, 'ex.rules')).not.toThrow()
    const unlisted = 'prefix_rule(pattern = ["git"], match = ["/usr/bin/git status"])'
    expect(() => parsePolicy(unlisted, 'ex.rules')).toThrow('ex.rules:1:41: match example')
  })

  it('string examples are split like a shell, without expansion', () => {
    const text = `prefix_rule(pattern = ["echo", "a b", "$HOME"], match = ["echo 'a b' '$HOME'", "echo \\"a b\\" \\\\$HOME"])`
    expect(() => parsePolicy(text, 'ex.rules')).not.toThrow()
  })
})

describe('merging several files', () => {
  it('keeps every rule and lets the strictest decision win', async () => {
    const policy = await loadPolicy([fixture('default.rules'), fixture('team.rules')])
    expect(policy.files).toHaveLength(2)
    const decisions = matchRules(policy, ['npm', 'test']).map((m) => m.decision)
    expect(decisions.sort()).toEqual(['allow', 'forbidden', 'prompt'])
    const exec = await createExecPolicy({ policy })
    expect(exec.decide(['npm', 'test']).decision).toBe('forbidden')
    expect(exec.decide(['npm', 'install']).decision).toBe('prompt')
    expect(exec.decide(['npm', 'test']).matchedRules.map((m) => m.where)).toContain(`${fixture('team.rules')}:3`)
  })

  it('order does not weaken anything', async () => {
    const a = await createExecPolicy({ rules: [fixture('default.rules'), fixture('team.rules')] })
    const b = await createExecPolicy({ rules: [fixture('team.rules'), fixture('default.rules')] })
    for (const argv of [['npm', 'test'], ['git', 'push', '-f'], ['git', 'status'], ['rm', 'x']]) {
      expect(a.decide(argv).decision).toBe(b.decide(argv).decision)
    }
  })

  it('the last host_executable declaration for a name wins', async () => {
    const policy = await loadPolicy([fixture('default.rules'), fixture('team.rules')])
    expect(policy.hostExecutables.get('git')).toEqual(['/usr/local/bin/git'])
  })

  it('merges in-memory sources after files', async () => {
    const exec = await createExecPolicy({ rules: [fixture('default.rules')], sources: [{ filename: 'mem.rules', text: 'prefix_rule(["ls"], "forbidden")' }] })
    expect(exec.decide(['ls']).decision).toBe('forbidden')
    expect(exec.policy.files).toEqual([fixture('default.rules'), 'mem.rules'])
  })
})

describe('network rules', () => {
  it('match normalised host and protocol, strictest wins, deny = forbidden', async () => {
    const exec = await createExecPolicy({ rules: [fixture('default.rules')] })
    expect(exec.decideNetwork('REGISTRY.npmjs.org.', 'https').decision).toBe('allow')
    expect(exec.decideNetwork('example.com', 'http').decision).toBe('forbidden')
    expect(exec.decideNetwork('example.com', 'https').decision).toBeUndefined()
    expect(exec.decideNetwork('example.com', 'gopher').decision).toBeUndefined()
  })
})
