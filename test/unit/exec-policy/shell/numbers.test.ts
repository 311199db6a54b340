/**
 * Issue 11, bug 5: `-3` in `git log -3` (and `-5`, `-1`, `010`, `0x1F`,
 * `10#5`) is a plain word to bash, so it is to the splitter (tree-sitter-bash
 * read these as `number` nodes; script-reader.ts reads words as bash does).
 * What bash does expand around them (`$((…))`, `$n`, `10#${x}`, braces)
 * stays opaque, and a glob is marked as one. Every plain split is checked
 * against what bash itself passes.
 */
import { execFileSync } from 'node:child_process'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Parser } from 'web-tree-sitter'
import { createExecPolicy, type ExecPolicy } from '../../../../src/exec-policy/index.js'
import { loadBashParser } from '../../../../src/exec-policy/shell/bash-parser.js'
import { splitScript } from '../../../../src/exec-policy/shell/shell-script.js'

let parser: Parser
let exec: ExecPolicy

beforeAll(async () => {
  parser = await loadBashParser()
  exec = await createExecPolicy({
    sources: [{ filename: 'numbers.rules', text: 'prefix_rule(pattern = ["kill", "-9"], decision = "forbidden")' }],
  })
})

/** The words bash passes for a one-command script: `printf '%s\0'` in front of it prints them. */
function bashWords(script: string): string[] {
  const out = execFileSync('bash', ['--norc', '--noprofile', '-c', `printf '%s\\0' ${script}`], { encoding: 'utf8' })
  return out.split('\0').slice(0, -1)
}

describe('numbers in arguments are plain words', () => {
  it.each([
    ['git log -3', ['git', 'log', '-3']],
    ['head -5 f', ['head', '-5', 'f']],
    ['tail -n +2 f', ['tail', '-n', '+2', 'f']],
    ['sort -k2 f', ['sort', '-k2', 'f']],
    ['ls -1', ['ls', '-1']],
    ['kill -9 1', ['kill', '-9', '1']],
    ['git log -n 3', ['git', 'log', '-n', '3']],
    ['cut -d: -f1,3 f', ['cut', '-d:', '-f1,3', 'f']],
    ['echo 010 0x1F 0x10 10#5 64#zz 2#1_0 -0 -1.5 -3x 1_000 99999999999999999999', ['echo', '010', '0x1F', '0x10', '10#5', '64#zz', '2#1_0', '-0', '-1.5', '-3x', '1_000', '99999999999999999999']],
    ['echo -3"a" -3\'b\' 5\\*', ['echo', '-3a', '-3b', '5*']],
    ['7 -5', ['7', '-5']],
  ])('%j', (script, expected) => {
    const split = splitScript(parser, script)
    expect(split).toEqual({ opaque: false, commands: [{ argv: expected }], operators: [] })
    expect(bashWords(script)).toEqual(expected)
  })
})

describe('what bash expands stays opaque', () => {
  it.each([
    ['head -$n f', 'expansion ($)'],
    ['head -$((n + 1)) f', 'expansion ($)'],
    ['echo $((1+2))', 'expansion ($)'],
    ['echo 10#${x}', 'expansion ($)'],
    ['echo 0x1#$(id)', 'expansion ($)'],
    ['echo 3{1..2}', 'brace expansion'],
    ['echo 12>out', 'fd number 12'],
  ])('%j', (script, reason) => {
    const split = splitScript(parser, script)
    expect(split.opaque && split.reason).toContain(reason)
  })

  it.each([
    ['echo 5[1]', 1],
    ['echo -5*', 1],
  ])('%j: a glob word', (script, at) => {
    const split = splitScript(parser, script)
    expect(split.opaque).toBe(false)
    expect(!split.opaque && split.commands[0]?.globs?.[at]?.word).toBe(script.split(' ')[at])
  })

  it.each([
    ['head -5 f > out', { argv: ['head', '-5', 'f'], redirects: [{ fd: 1, op: '>', target: 'out' }] }],
    ['echo 2>&1', { argv: ['echo'], redirects: [{ fd: 2, op: '>&', target: '1' }] }],
  ])('%j: a redirection, not an argument', (script, command) => {
    expect(splitScript(parser, script)).toEqual({ opaque: false, commands: [command], operators: [] })
  })
})

describe('decisions', () => {
  it.each([
    'git log -3',
    'git log -3 | head -5',
    'git log --oneline -20 && git status',
    'tail -n +2 f | sort -k2 | uniq -c',
    'ls -1 | wc -l',
  ])('bash -lc %j runs without a prompt, like its long-option spelling', (script) => {
    const result = exec.decide(['bash', '-lc', script])
    expect(result).toMatchObject({ decision: 'allow', opaque: false })
  })

  it('a short numeric flag and its long spelling decide alike', () => {
    const short = exec.decide(['bash', '-lc', 'git log -3 | head -5'])
    const long = exec.decide(['bash', '-lc', 'git log -n 3 | head -n 5'])
    expect([short.decision, short.source, short.opaque]).toEqual([long.decision, long.source, long.opaque])
  })

  it('rules see numeric arguments, also inside an opaque script', () => {
    expect(exec.decide(['bash', '-lc', 'kill -9 1']).decision).toBe('forbidden')
    expect(exec.decide(['bash', '-lc', 'kill -9 1 > /dev/null'])).toMatchObject({ decision: 'forbidden', opaque: false })
    expect(exec.decide(['bash', '-lc', 'kill -9 $(pgrep x)'])).toMatchObject({ decision: 'forbidden', opaque: true })
  })

  it('an arithmetic argument still needs approval', () => {
    expect(exec.decide(['bash', '-lc', 'git log -$((2 + 1))'])).toMatchObject({ decision: 'prompt', opaque: true })
  })
})
