/** The table-driven argv parser, in process (the binary end to end: usage.test.ts). */
import { describe, expect, it } from 'vitest'
import { parseArgs } from '../../../src/cli/args.js'
import { CHECK, DOCTOR, RUN } from '../../../src/cli/flags.js'

describe('parseArgs', () => {
  it('reads values, repeats, switches and the command', () => {
    const p = parseArgs(['--read', '/a', '--read=/b', '--mode', 'landlock', '--json', 'ls', '-l', '--json'], RUN)
    expect(p).toEqual({ values: { '--read': ['/a', '/b'], '--mode': ['landlock'] }, switches: new Set(['--json']), command: ['ls', '-l', '--json'] })
  })

  it('takes a short alias under the long name', () => {
    expect(parseArgs(['-h'], DOCTOR).switches).toEqual(new Set(['--help']))
  })

  it.each([
    [['--frobnicate', '--', 'ls'], 'unknown option --frobnicate'],
    [['--mode', 'bogus', 'ls'], "--mode must be one of auto, namespaces, landlock (got 'bogus')"],
    [['--cwd', '/a', '--cwd', '/b', 'ls'], '--cwd given twice'],
    [['--read=', 'ls'], '--read needs a non-empty value (PATH)'],
    [['--cwd'], '--cwd needs a value (DIR)'],
    [['--json=1', 'ls'], '--json takes no value'],
    [['--json'], 'no command given'],
    [['--'], 'no command given'],
  ])('%j: %s', (argv, error) => {
    expect(parseArgs(argv, RUN).error).toBe(error)
  })

  it('keeps reading past an error, so a later --json or --help still counts; the first error wins', () => {
    const p = parseArgs(['--frobnicate', '--mode', 'bogus', '--json', '--help', '--', 'ls'], RUN)
    expect(p.error).toBe('unknown option --frobnicate')
    expect(p.switches).toEqual(new Set(['--json', '--help']))
  })

  it('a command without operands refuses any', () => {
    expect(parseArgs(['extra'], DOCTOR).error).toBe("unexpected argument 'extra'")
    expect(parseArgs(['--', 'ls'], DOCTOR).error).toBe("unexpected argument 'ls': cordon doctor takes no command")
  })

  it('a variadic flag takes every word up to the next flag or --; --rules is required and -- too', () => {
    expect(parseArgs(['--rules', 'a', 'b', '--json', '--rules=c', '--', 'ls'], CHECK)).toMatchObject({ values: { '--rules': ['a', 'b', 'c'] }, command: ['ls'] })
    expect(parseArgs(['--rules=a', 'b', '--', 'ls'], CHECK).error).toBe("unexpected argument 'b'")
    expect(parseArgs(['--', 'ls'], CHECK).error).toBe('--rules FILE is required')
    expect(parseArgs(['--rules', 'a', 'ls'], CHECK).error).toBe('missing -- before the command')
  })
})
