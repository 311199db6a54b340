import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PolicyError } from '../../../../src/errors.js'
import { createExecPolicy, resolveProgram, type ExecPolicy } from '../../../../src/exec-policy/index.js'
import { removeTempDirs, tempDir } from '../../../helpers/temp.js'

afterAll(removeTempDirs)

const RULES = [
  'prefix_rule(pattern = ["git", "status"], decision = "allow")',
  'prefix_rule(pattern = ["git", "push"], decision = "forbidden")',
  'prefix_rule(pattern = ["tool"], decision = "allow")',
  'host_executable(name = "git", paths = ["/usr/bin/git", "/opt/homebrew/bin/git"])',
].join('\n')

/** A fake executable at dir/name. */
function plant(dir: string, name: string): string {
  mkdirSync(dir, { recursive: true })
  const path = join(dir, name)
  writeFileSync(path, '#!/bin/sh\nexit 0\n')
  chmodSync(path, 0o755)
  return path
}

describe('host_executable and program paths', () => {
  let exec: ExecPolicy
  beforeAll(async () => {
    exec = await createExecPolicy({ sources: [{ filename: 'host.rules', text: RULES }] })
  })

  it('a listed absolute path matches the basename rule, and says so', () => {
    const result = exec.decide(['/usr/bin/git', 'status'])
    expect(result).toMatchObject({ decision: 'allow', source: 'rule' })
    expect(result.matchedRules[0]?.resolvedProgram).toBe('/usr/bin/git')
    expect(exec.decide(['/opt/homebrew/bin/git', 'push']).decision).toBe('forbidden')
  })

  it('an unlisted absolute path does not inherit the basename rule', () => {
    const result = exec.decide(['/tmp/evil/git', 'status'])
    expect(result).toMatchObject({ decision: 'prompt', source: 'default' })
    expect(result.matchedRules).toEqual([])
  })

  it('a relative path never matches a basename rule, nor the safe list', () => {
    for (const program of ['./git', 'bin/git', '../git']) {
      const result = exec.decide([program, 'status'])
      expect(result.decision).toBe('prompt')
      expect(result.matchedRules).toEqual([])
      expect(result.proposedAmendment).toBeUndefined()
    }
    expect(exec.decide(['./ls']).decision).toBe('prompt')
  })

  it('inside a script, ./git is not git', () => {
    expect(exec.decide(['bash', '-lc', './git status']).decision).toBe('prompt')
    expect(exec.decide(['bash', '-lc', 'git status']).decision).toBe('allow')
  })

  it('without host_executable, an absolute path needs an exact rule (stricter than Codex)', () => {
    expect(exec.decide(['/usr/local/bin/tool']).decision).toBe('prompt')
    expect(exec.decide(['tool']).decision).toBe('allow')
  })

  it('system paths keep the known-safe heuristics; other absolute paths do not', () => {
    expect(exec.decide(['/bin/ls', '-la']).decision).toBe('allow')
    expect(exec.decide(['/home/u/bin/ls', '-la']).decision).toBe('prompt')
  })
})

describe('resolveProgram', () => {
  const root = tempDir('cordon-path-')
  const system = join(root, 'system')
  const work = join(root, 'work')
  const systemGit = plant(system, 'git')
  plant(join(work, 'bin'), 'git')
  plant(join(work, 'bin'), 'only-here')
  const base = { cwd: work, writableRoots: [work] }

  it('resolves through trusted PATH entries', () => {
    expect(resolveProgram('git', { ...base, PATH: system })).toEqual({ ok: true, path: systemGit })
  })

  it('refuses a PATH with a relative or empty entry before the match', () => {
    for (const PATH of [`.:${system}`, `:${system}`, `bin:${system}`]) {
      const r = resolveProgram('git', { ...base, PATH })
      expect(r.ok).toBe(false)
      if (!r.ok) expect(r.reason).toContain('relative')
    }
  })

  it('refuses a PATH entry inside a writable root', () => {
    const r = resolveProgram('git', { ...base, PATH: `${join(work, 'bin')}:${system}` })
    expect(r).toEqual({ ok: false, reason: `PATH entry ${join(work, 'bin')} is inside writable root ${work}` })
  })

  it('refuses a writable root given relative to cwd', () => {
    const r = resolveProgram('git', { cwd: work, writableRoots: ['.'], PATH: `${join(work, 'bin')}:${system}` })
    expect(r.ok).toBe(false)
  })

  it('refuses a program that is a symlink into a writable root', () => {
    const linkDir = join(root, 'links')
    mkdirSync(linkDir)
    symlinkSync(join(work, 'bin', 'only-here'), join(linkDir, 'only-here'))
    const r = resolveProgram('only-here', { ...base, PATH: linkDir })
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.reason).toContain('resolves inside writable root')
  })

  it('entries after the match do not matter', () => {
    expect(resolveProgram('git', { ...base, PATH: `${system}:.:${join(work, 'bin')}` }).ok).toBe(true)
  })

  it('relative paths are never trusted; absolute ones are checked like PATH hits', () => {
    expect(resolveProgram('./git', { ...base, PATH: system }).ok).toBe(false)
    expect(resolveProgram(systemGit, { ...base, PATH: '' })).toEqual({ ok: true, path: systemGit })
    expect(resolveProgram(join(work, 'bin', 'git'), { ...base, PATH: '' }).ok).toBe(false)
  })

  it('reports a missing program', () => {
    expect(resolveProgram('nope', { ...base, PATH: system })).toEqual({ ok: false, reason: 'nope not found in PATH' })
  })

  it('validates its options', () => {
    expect(() => resolveProgram('git', { PATH: system } as never)).toThrow(PolicyError)
  })

  it('decide(…, {resolve}) never allows a name resolved through a writable PATH entry', async () => {
    const exec = await createExecPolicy({ sources: [{ filename: 'r.rules', text: 'prefix_rule(pattern = ["git", "status"])' }] })
    const trusted = { resolve: { ...base, PATH: system } }
    expect(exec.decide(['git', 'status'], trusted).decision).toBe('allow')
    const hijacked = exec.decide(['git', 'status'], { resolve: { ...base, PATH: `${join(work, 'bin')}:${system}` } })
    expect(hijacked.decision).toBe('prompt')
    expect(hijacked.segments[0]?.reason).toContain('cannot trust git')
    expect(hijacked.proposedAmendment).toBeUndefined()
    expect(exec.decide(['bash', '-lc', 'ls && git status'], { resolve: { ...base, PATH: `.:${system}` } }).decision).toBe('prompt')
  })

  it('decide(…, {resolve}) requires the resolved path to be listed when host_executable names the program', async () => {
    const text = `prefix_rule(pattern = ["git"])\nhost_executable(name = "git", paths = ["/usr/bin/git"])`
    const exec = await createExecPolicy({ sources: [{ filename: 'r.rules', text }] })
    const result = exec.decide(['git', 'log'], { resolve: { ...base, PATH: system } })
    expect(result.decision).toBe('prompt')
    expect(result.segments[0]?.reason).toBe(`git resolves to ${systemGit}, which host_executable does not list`)
  })
})
