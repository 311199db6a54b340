import { describe, expect, it } from 'vitest'
import { commandLine, isBatchFile, quoteArg } from '../../../../src/platform/win32/command-line.js'
import { PolicyError } from '../../../../src/errors.js'

/**
 * The Microsoft C runtime's / CommandLineToArgvW's splitting of the
 * arguments after the program name (MSDN, "Parsing C++ command-line
 * arguments"), written from the documented rules as the oracle: `""`
 * inside quotes is the one case this quoting never produces, so its
 * version-dependent meaning does not matter here.
 */
function splitArgs(line: string): string[] {
  const out: string[] = []
  let i = 0
  while (i < line.length) {
    while (line[i] === ' ' || line[i] === '\t') i++
    if (i >= line.length) break
    let arg = ''
    let quoted = false
    for (; i < line.length; i++) {
      const c = line[i]!
      if (!quoted && (c === ' ' || c === '\t')) break
      if (c === '\\') {
        let n = 0
        while (line[i + n] === '\\') n++
        if (line[i + n] === '"') {
          arg += '\\'.repeat(Math.floor(n / 2))
          i += n
          if (n % 2 === 1) arg += '"'
          else quoted = !quoted
        } else {
          arg += '\\'.repeat(n)
          i += n - 1
        }
      } else if (c === '"') {
        quoted = !quoted
      } else {
        arg += c
      }
    }
    out.push(arg)
  }
  return out
}

/** argv[0]: up to the first space or tab, or between the first two quotes; no escapes. */
function splitProgram(line: string): [string, string] {
  if (line.startsWith('"')) {
    const end = line.indexOf('"', 1)
    return [line.slice(1, end), line.slice(end + 1)]
  }
  const m = /^[^ \t]*/.exec(line)![0]
  return [m, line.slice(m.length)]
}

const roundTrip = (argv: string[]) => {
  const [prog, rest] = splitProgram(commandLine(argv))
  return [prog, ...splitArgs(rest)]
}

describe('Windows command-line quoting', () => {
  it('leaves plain arguments alone and quotes what needs it', () => {
    expect(quoteArg('plain')).toBe('plain')
    expect(quoteArg('')).toBe('""')
    expect(quoteArg('a b')).toBe('"a b"')
    expect(quoteArg('a"b')).toBe('"a\\"b"')
    expect(quoteArg('a\\')).toBe('a\\') // no quotes needed: a lone trailing backslash is literal
    expect(quoteArg('a b\\')).toBe('"a b\\\\"') // inside quotes it must be doubled, or it would escape the closing quote
    expect(quoteArg('\\\\"')).toBe('"\\\\\\\\\\""')
  })

  it.each([
    [['prog', 'two words', '', 'tab\there', 'quote"inside', 'trailing\\', 'back\\\\"quote', '\\\\server\\share\\', 'ünïcødé ✓', '"', '\\', 'nl\nx', '\v']],
    [['C:\\Program Files\\tool.exe', 'a']],
  ])('round-trips %j', (argv) => {
    expect(roundTrip(argv)).toEqual(argv)
  })

  it('round-trips random arguments made of the characters that matter', () => {
    const alphabet = ['a', ' ', '\t', '"', '\\', 'é', '\n']
    let seed = 12345
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed % n)
    for (let round = 0; round < 2000; round++) {
      const argv = ['prog', ...Array.from({ length: 1 + rand(4) }, () => Array.from({ length: rand(8) }, () => alphabet[rand(alphabet.length)]).join(''))]
      expect(roundTrip(argv), JSON.stringify(argv)).toEqual(argv)
    }
  })

  it('refuses a NUL anywhere, an empty argv, and a quote in the program name', () => {
    expect(() => commandLine(['prog', 'a\0b'])).toThrow(PolicyError)
    expect(() => commandLine([])).toThrow(PolicyError)
    expect(() => commandLine(['pro"g'])).toThrow(PolicyError)
  })

  it('knows batch files by extension, any case', () => {
    expect(isBatchFile('C:\\x\\build.CMD')).toBe(true)
    expect(isBatchFile('C:\\x\\run.bat')).toBe(true)
    expect(isBatchFile('C:\\x\\node.exe')).toBe(false)
  })
})
