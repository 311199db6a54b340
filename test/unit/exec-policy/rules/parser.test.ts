import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { PolicyError } from '../../../../src/errors.js'
import { parsePolicy } from '../../../../src/exec-policy/index.js'

const fixture = (name: string): string => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url))

/** The PolicyError's `where` for parsing `text` as `t.rules`. */
function whereOf(text: string): string | undefined {
  try {
    parsePolicy(text, 't.rules')
  } catch (err) {
    expect(err).toBeInstanceOf(PolicyError)
    return (err as PolicyError).where
  }
  throw new Error('expected a PolicyError')
}

function messageOf(text: string): string {
  try {
    parsePolicy(text, 't.rules')
  } catch (err) {
    return (err as PolicyError).message
  }
  throw new Error('expected a PolicyError')
}

describe('rules language: a realistic file', () => {
  const file = fixture('default.rules')
  const policy = parsePolicy(readFileSync(file, 'utf8'), file)

  it('builds one rule per first-token alternative, keyed by program', () => {
    expect([...policy.rulesByProgram.keys()].sort()).toEqual(['cargo', 'gh', 'git', 'ls', 'npm', 'rm', 'rmdir'])
    expect(policy.rulesByProgram.get('git')).toHaveLength(3)
  })

  it('expands variables and list alternatives', () => {
    const [readOnly] = policy.rulesByProgram.get('git') ?? []
    expect(readOnly?.rest).toEqual([['status', 'log', 'diff', 'show']])
    expect(readOnly?.decision).toBe('allow')
    expect(readOnly?.justification).toBe('Read-only git is fine.')
    expect(readOnly?.location).toEqual({ file, line: 6, column: 1 })
  })

  it('binds positional arguments in Codex order (pattern, decision)', () => {
    const [gh] = policy.rulesByProgram.get('gh') ?? []
    expect(gh?.rest).toEqual([['pr'], ['view', 'list']])
    expect(gh?.decision).toBe('prompt')
  })

  it('defaults decision to allow, as Codex does', () => {
    expect(parsePolicy('prefix_rule(pattern = ["make"])', 't').rulesByProgram.get('make')?.[0]?.decision).toBe('allow')
  })

  it('reads host_executable and network_rule', () => {
    expect(policy.hostExecutables.get('git')).toEqual(['/usr/bin/git', '/opt/homebrew/bin/git'])
    expect(policy.networkRules.map((r) => [r.host, r.protocol, r.decision])).toEqual([
      ['registry.npmjs.org', 'https', 'allow'],
      ['example.com', 'http', 'forbidden'],
    ])
  })
})

describe('rules language: syntax', () => {
  it('decodes escapes, raw and triple-quoted strings, and + on strings and lists', () => {
    const text = [
      'A = ["a\\tb", \'q\\\'s\', "\\x41\\u00e9"]',
      'B = r"c:\\dir" + """x',
      'y"""',
      'prefix_rule(pattern = A + [B])',
    ].join('\n')
    const rule = parsePolicy(text, 't').rulesByProgram.get('a\tb')?.[0]
    expect(rule?.rest).toEqual([["q's"], ['Aé'], ['c:\\dirx\ny']])
  })

  it('accepts comments, semicolons, CRLF line ends, trailing commas and None for optional arguments', () => {
    const text = 'X = ["a",]  # trailing comma\r\nprefix_rule(pattern = X, justification = None,); prefix_rule(["b"],)\r\n'
    expect([...parsePolicy(text, 't').rulesByProgram.keys()]).toEqual(['a', 'b'])
  })

  it('reports exact line:column for syntax errors', () => {
    expect(whereOf('prefix_rule(\n    pattern = ["git"],\n    decision = "allow"\n    justification = "x",\n)')).toBe('t.rules:4:5')
    expect(whereOf('x = [\n')).toBe('t.rules:2:1')
    expect(whereOf('prefix_rule(pattern = ["a"]')).toBe('t.rules:1:28')
    expect(whereOf('x = "abc\n')).toBe('t.rules:1:5')
    expect(whereOf('\n\nx = """never closed')).toBe('t.rules:3:5')
    expect(whereOf('x = "bad \\q escape"')).toBe('t.rules:1:10')
    expect(whereOf('  prefix_rule(pattern=["a"])')).toBe('t.rules:1:3')
    expect(whereOf('x = 1 * 2')).toBe('t.rules:1:7')
    expect(whereOf('x = {"a": 1}')).toBe('t.rules:1:5')
    expect(whereOf('x = ("a", "b")')).toBe('t.rules:1:9')
    expect(whereOf('def f():\n  pass')).toBe('t.rules:1:1')
    expect(whereOf('load("x.star", "y")')).toBe('t.rules:1:1')
    expect(whereOf('x = f"{y}"')).toBe('t.rules:1:5')
    expect(whereOf('x = [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]')).toMatch(/^t\.rules:1:\d+$/)
  })

  it('names file:line:col in the message too', () => {
    expect(messageOf('prefix_rule(\n  pattern = ["a"],\n  bogus = 1)')).toBe("t.rules:3:3: prefix_rule() got an unexpected keyword argument 'bogus'")
  })
})

describe('rules language: semantic errors point at the argument', () => {
  it.each([
    ['frobnicate(pattern = ["a"])', 't.rules:1:1', "unknown function 'frobnicate'"],
    ['prefix_rule(pattern = ["a"], decision = "maybe")', 't.rules:1:41', 'decision must be'],
    ['prefix_rule(pattern = ["ls"], decision = 3)', 't.rules:1:42', 'decision must be a string, got int'],
    ['prefix_rule(pattern = "ls")', 't.rules:1:23', 'pattern must be a list, got string'],
    ['prefix_rule(pattern = [])', 't.rules:1:23', 'pattern cannot be empty'],
    ['prefix_rule(pattern = ["a", []])', 't.rules:1:29', 'pattern alternatives cannot be empty'],
    ['prefix_rule(pattern = ["a", [1]])', 't.rules:1:30', 'pattern alternative must be a string, got int'],
    ['prefix_rule(pattern = ["a"], justification = " ")', 't.rules:1:46', 'justification cannot be empty'],
    ['prefix_rule(decision = "allow")', 't.rules:1:1', "missing required argument 'pattern'"],
    ['prefix_rule(["a"], pattern = ["b"])', 't.rules:1:20', "multiple values for argument 'pattern'"],
    ['prefix_rule(pattern = ["a"], "allow")', 't.rules:1:30', 'positional argument after keyword'],
    ['prefix_rule(["a"], "allow", [], [], "j", "extra")', 't.rules:1:42', 'at most 5 positional'],
    ['prefix_rule(pattern = X)', 't.rules:1:23', "name 'X' is not defined"],
    ['X = ["a"]\nX = ["b"]', 't.rules:2:1', "cannot reassign 'X'"],
    ['x = ["a"] + "b"', 't.rules:1:11', 'unsupported operand types for +: list and string'],
    ['prefix_rule(pattern = ["a"], match = ["\'unterminated"])', 't.rules:1:39', 'unterminated quoting'],
    ['prefix_rule(pattern = ["a"], match = [""])', 't.rules:1:39', 'cannot be empty'],
    ['host_executable(name = "bin/git", paths = [])', 't.rules:1:24', 'bare program name'],
    ['host_executable(name = "git", paths = ["usr/bin/git"])', 't.rules:1:40', 'must be absolute'],
    ['host_executable(name = "git", paths = ["/usr/bin/gitx"])', 't.rules:1:40', 'must have basename "git"'],
    ['network_rule(host = "https://x.org/", protocol = "https", decision = "allow")', 't.rules:1:21', 'without scheme or path'],
    ['network_rule(host = "*.x.org", protocol = "https", decision = "allow")', 't.rules:1:21', 'wildcards are not allowed'],
    ['network_rule(host = "x.org", protocol = "ftp", decision = "allow")', 't.rules:1:41', 'protocol must be one of'],
    ['network_rule(host = "x.org", protocol = "https")', 't.rules:1:1', "missing required argument 'decision'"],
  ])('%s', (text, where, message) => {
    expect(whereOf(text)).toBe(where)
    expect(messageOf(text)).toContain(message)
  })
})
