import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { removeTempDirs, tempDir } from '../../helpers/temp.js'
import { runCheck } from '../../../src/cli/check.js'

const fixture = (name: string): string => fileURLToPath(new URL(`../exec-policy/rules/fixtures/${name}`, import.meta.url))

async function check(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  const code = await runCheck(argv, { stdout: (s) => void (out += s), stderr: (s) => void (err += s) })
  return { code, out, err }
}

describe('cordon check', () => {
  const rules = fixture('default.rules')

  it('exits 0 for allow, 1 for prompt, 2 for forbidden', async () => {
    expect((await check('--rules', rules, '--', 'git', 'status')).code).toBe(0)
    expect((await check('--rules', rules, '--', 'git', 'fetch')).code).toBe(1)
    expect((await check('--rules', rules, '--', 'cargo', 'test')).code).toBe(1)
    expect((await check('--rules', rules, '--', 'bash', '-lc', 'git status && rm -rf build')).code).toBe(2)
  })

  it('prints the decision, each segment and the matched rules', async () => {
    const { out } = await check('--rules', rules, '--', 'bash', '-lc', 'ls && git push -f')
    expect(out).toContain('decision: forbidden (rule)')
    expect(out).toContain('forbidden git push -f  [rule]')
    expect(out).toContain(`${rules}:30  forbidden  git push -f — Use \`git push --force-with-lease\` after asking.`)
  })

  it('suggests a rule for an unknown command', async () => {
    const { out } = await check('--rules', rules, '--', 'cargo', 'test')
    expect(out).toContain('to always allow: prefix_rule(pattern=["cargo","test"], decision="allow")')
  })

  it('prints the full result as JSON with --json', async () => {
    const { code, out } = await check('--rules', rules, '--json', '--', 'git', 'push', 'origin', 'main')
    expect(code).toBe(1)
    const result = JSON.parse(out) as { decision: string; matchedRules: { where: string; matchedPrefix: string[] }[] }
    expect(result.decision).toBe('prompt')
    expect(result.matchedRules[0]).toMatchObject({ where: `${rules}:22`, matchedPrefix: ['git', 'push'] })
  })

  it('accepts several files after one --rules, repeated --rules and --rules=FILE', async () => {
    const team = fixture('team.rules')
    expect((await check('--rules', rules, team, '--', 'npm', 'test')).code).toBe(2)
    expect((await check('--rules', rules, '--rules', team, '--', 'npm', 'test')).code).toBe(2)
    expect((await check(`--rules=${team}`, '--', 'npm', 'test')).code).toBe(2)
  })

  it('exits 65 naming file:line:col when a rules file is missing or invalid', async () => {
    const bad = fixture('syntax-error.rules')
    const invalid = await check('--rules', rules, bad, '--', 'ls')
    expect(invalid.code).toBe(65)
    expect(invalid.err).toContain(`${bad}:4:5:`)
    const missing = await check('--rules', fixture('missing.rules'), '--json', '--', 'ls')
    expect(missing.code).toBe(65)
    expect(JSON.parse(missing.out)).toMatchObject({ error: { code: 'E_POLICY', where: `${fixture('missing.rules')}:1:1` } })
  })

  it('exits 64 on usage errors, 0 on --help', async () => {
    for (const argv of [[], ['--', 'ls'], ['--rules', rules], ['--rules', rules, '--'], ['--bogus', '--rules', rules, '--', 'ls'], ['stray', '--', 'ls']]) {
      const { code, err } = await check(...argv)
      expect(code, JSON.stringify(argv)).toBe(64)
      expect(err).toContain('usage: cordon check')
    }
    expect((await check('--help')).code).toBe(0)
  })

  describe('the workspace: as `cordon run` would grant it with the same --profile, --cwd and --write', () => {
    afterAll(removeTempDirs)
    const script = (target: string) => ['bash', '-lc', `ls > ${target}`]

    it('a redirection into the cwd is the workspace\'s (allowed); outside it, asked with the path', async () => {
      const ws = tempDir('check-ws')
      const inside = await check('--rules', rules, '--cwd', ws, '--', ...script('out.txt'))
      expect(inside.code, inside.out).toBe(0)
      const outside = await check('--rules', rules, '--cwd', ws, '--', ...script('/etc/cordon-check.txt'))
      expect(outside.code).toBe(1)
      expect(outside.out).toContain('writes outside the writable roots (/etc/cordon-check.txt)')
    })

    it('--profile read-only has no write root: the same redirection is asked', async () => {
      const ws = tempDir('check-ro')
      const r = await check('--rules', rules, '--cwd', ws, '--profile', 'read-only', '--', ...script('out.txt'))
      expect(r.code).toBe(1)
      expect(r.out).toContain(`writes outside the writable roots (${join(ws, 'out.txt')})`)
    })

    it('--write adds a write root; a protected path in it stays asked', async () => {
      const [ws, extra] = [tempDir('check-w'), tempDir('check-extra')]
      mkdirSync(join(ws, '.git'))
      expect((await check('--rules', rules, '--cwd', ws, '--', ...script(join(extra, 'o.txt')))).code).toBe(1)
      expect((await check('--rules', rules, '--cwd', ws, '--write', extra, '--', ...script(join(extra, 'o.txt')))).code).toBe(0)
      const hooks = await check('--rules', rules, '--cwd', ws, '--', ...script('.git/hooks/pre-commit'))
      expect(hooks.code, hooks.out).toBe(1)
    })

    it('a cwd that does not exist is a setup error (125), as for `cordon run`; nothing is decided', async () => {
      const r = await check('--rules', rules, '--json', '--cwd', '/nonexistent-cordon-check', '--', 'ls')
      expect(r.code).toBe(125)
      expect(JSON.parse(r.out)).toMatchObject({ error: { message: expect.stringMatching(/nonexistent-cordon-check does not exist/) } })
    })
  })
})
