/**
 * Amendments: appended under a lock, de-duplicated, never to a file that
 * does not parse, and safe with several processes writing at once.
 */
import { execFile } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { parsePolicy } from '../../../../src/exec-policy/index.js'
import { appendNetworkRule, appendPrefixRule } from '../../../../src/orchestrator/index.js'
import { starlarkString } from '../../../../src/orchestrator/approval/amendments.js'
import { repoRoot } from '../../../helpers/paths.js'
import { removeTempDirs, tempDir } from '../../../helpers/temp.js'

afterAll(removeTempDirs)

const run = promisify(execFile)
const fresh = (text = '') => {
  const file = join(tempDir('amend-'), 'default.rules')
  if (text) writeFileSync(file, text)
  return file
}

describe('appendPrefixRule', () => {
  it('creates the file and appends a rule the parser reads back', async () => {
    const file = join(tempDir('amend-'), 'nested', 'default.rules')
    expect(await appendPrefixRule(file, ['npm', 'run', 'lint'])).toMatchObject({ added: true })
    const policy = parsePolicy(readFileSync(file, 'utf8'), file)
    expect(policy.rulesByProgram.get('npm')?.[0]).toMatchObject({ decision: 'allow', rest: [['run'], ['lint']] })
  })

  it('does not add a rule already there (also when written by hand, with other spacing)', async () => {
    const file = fresh('prefix_rule( pattern = [ "cargo" , "build" ] , decision = "allow" )')
    expect(await appendPrefixRule(file, ['cargo', 'build'])).toMatchObject({ added: false })
    expect(await appendPrefixRule(file, ['cargo', 'test'])).toMatchObject({ added: true })
    expect(await appendPrefixRule(file, ['cargo', 'test'])).toMatchObject({ added: false })
    expect(readFileSync(file, 'utf8').match(/prefix_rule/g)).toHaveLength(2)
  })

  it('escapes tokens so odd arguments round-trip exactly', async () => {
    const file = fresh()
    const odd = ['tool', 'a "quoted" arg', 'back\\slash', 'tab\there', 'new\nline', 'ünïcode']
    await appendPrefixRule(file, odd)
    const rule = parsePolicy(readFileSync(file, 'utf8'), file).rulesByProgram.get('tool')?.[0]
    expect(rule?.rest.map((alts) => alts[0])).toEqual(odd.slice(1))
    expect(starlarkString('\x01')).toBe('"\\x01"')
  })

  it('fails closed: a file that does not parse is not appended to', async () => {
    const file = fresh('prefix_rule(pattern=["ls"]\n')
    await expect(appendPrefixRule(file, ['ls'])).rejects.toMatchObject({ code: 'E_POLICY', message: expect.stringMatching(/default\.rules:\d+:\d+/) })
    expect(readFileSync(file, 'utf8')).toBe('prefix_rule(pattern=["ls"]\n')
  })

  it('refuses empty patterns and NUL bytes', async () => {
    await expect(appendPrefixRule(fresh(), [])).rejects.toMatchObject({ code: 'E_POLICY' })
    await expect(appendPrefixRule(fresh(), ['a\0b'])).rejects.toMatchObject({ code: 'E_POLICY' })
  })
})

describe('appendNetworkRule', () => {
  it('normalises the host and de-duplicates', async () => {
    const file = fresh()
    expect(await appendNetworkRule(file, 'Example.COM.', 'https', 'allow')).toMatchObject({ added: true })
    expect(await appendNetworkRule(file, 'example.com', 'https', 'allow')).toMatchObject({ added: false })
    expect(parsePolicy(readFileSync(file, 'utf8'), file).networkRules).toMatchObject([{ host: 'example.com', protocol: 'https', decision: 'allow' }])
    await expect(appendNetworkRule(file, '*.example.com', 'https', 'allow')).rejects.toMatchObject({ code: 'E_POLICY' })
  })
})

describe('concurrent writers', () => {
  it('several processes appending at once: no lost and no duplicated rule', async () => {
    const file = fresh('# shared rules\n')
    const module = join(repoRoot, 'dist', 'orchestrator', 'approval', 'amendments.js')
    const WRITERS = 6
    const SHARED = 8
    // Every writer appends the same SHARED rules (in a different order) plus its own.
    const worker = `
      const { appendPrefixRule } = await import(${JSON.stringify(module)})
      const id = Number(process.argv[1])
      const shared = Array.from({ length: ${SHARED} }, (_, i) => ['shared', String(i)])
      const own = Array.from({ length: 5 }, (_, i) => ['own', String(id), String(i)])
      const mine = [...shared.slice(id % ${SHARED}), ...shared.slice(0, id % ${SHARED}), ...own]
      await Promise.all(mine.map((p) => appendPrefixRule(${JSON.stringify(file)}, p)))
    `
    await Promise.all(Array.from({ length: WRITERS }, (_, id) => run(process.execPath, ['--input-type=module', '-e', worker, String(id)])))
    const text = readFileSync(file, 'utf8')
    const lines = text.split('\n').filter((l) => l.startsWith('prefix_rule'))
    expect(lines).toHaveLength(SHARED + WRITERS * 5)
    expect(new Set(lines).size).toBe(lines.length)
    const policy = parsePolicy(text, file)
    expect(policy.rulesByProgram.get('shared')).toHaveLength(SHARED)
    expect(policy.rulesByProgram.get('own')).toHaveLength(WRITERS * 5)
  }, 60_000)
})
