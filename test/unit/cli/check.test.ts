import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
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
})
