import { describe, expect, it } from 'vitest'
import { PolicyError } from '../../../../src/errors.js'
import { PatchParseError } from '../../../../src/tools/apply-patch/errors.js'
import { parsePatch } from '../../../../src/tools/apply-patch/parser.js'

const p = (...lines: string[]) => `${lines.join('\n')}\n`

function parseError(text: string): PatchParseError {
  try {
    parsePatch(text)
  } catch (e) {
    expect(e).toBeInstanceOf(PatchParseError)
    expect(e).toBeInstanceOf(PolicyError)
    return e as PatchParseError
  }
  throw new Error('parsed')
}

describe('parsePatch', () => {
  it('reads add, delete, update with a move, hunks with and without headers, and the end-of-file marker', () => {
    const patch = parsePatch(
      p(
        '*** Begin Patch',
        '*** Add File: new/a.txt',
        '+one',
        '+',
        '*** Delete File: old.txt',
        '*** Update File: src/x.ts',
        '*** Move to: src/y.ts',
        '@@ function f() {',
        ' keep',
        '-gone',
        '+come',
        '@@',
        ' tail',
        '+last',
        '*** End of File',
        '*** End Patch',
      ),
    )
    expect(patch.ops).toEqual([
      { kind: 'add', path: 'new/a.txt', line: 2, content: 'one\n\n' },
      { kind: 'delete', path: 'old.txt', line: 5 },
      {
        kind: 'update',
        path: 'src/x.ts',
        line: 6,
        moveTo: { path: 'src/y.ts', line: 7 },
        hunks: [
          { line: 8, header: 'function f() {', endOfFile: false, lines: [{ kind: ' ', text: 'keep' }, { kind: '-', text: 'gone' }, { kind: '+', text: 'come' }] },
          { line: 12, endOfFile: true, lines: [{ kind: ' ', text: 'tail' }, { kind: '+', text: 'last' }] },
        ],
      },
    ])
  })

  it('takes an add with no lines as an empty file and a pure move without hunks', () => {
    const patch = parsePatch(p('*** Begin Patch', '*** Add File: e', '*** Update File: a', '*** Move to: b', '*** End Patch'))
    expect(patch.ops).toEqual([
      { kind: 'add', path: 'e', line: 2, content: '' },
      { kind: 'update', path: 'a', line: 3, moveTo: { path: 'b', line: 4 }, hunks: [] },
    ])
  })

  it('tolerates CRLF, blank lines around the patch, trailing spaces after markers, a first hunk without @@ and an empty context line', () => {
    const text = '\n\r\n*** Begin Patch  \r\n*** Update File: a\r\n x\r\n\r\n-y\r\n*** End Patch \r\n\n'
    expect(parsePatch(text).ops).toEqual([
      { kind: 'update', path: 'a', line: 4, hunks: [{ line: 5, endOfFile: false, lines: [{ kind: ' ', text: 'x' }, { kind: ' ', text: '' }, { kind: '-', text: 'y' }] }] },
    ])
  })

  it('keeps content lines that look like markers when they carry a hunk prefix', () => {
    const patch = parsePatch(p('*** Begin Patch', '*** Update File: a', '@@', ' *** End Patch', '+*** Delete File: b', '*** End Patch'))
    const op = patch.ops[0]
    expect(op?.kind === 'update' && op.hunks[0]?.lines).toEqual([{ kind: ' ', text: '*** End Patch' }, { kind: '+', text: '*** Delete File: b' }])
  })

  // Each error names the line and what the grammar allows there.
  it.each([
    ['no begin marker', p('*** Update File: a'), 1, "'*** Begin Patch'", '"*** Update File: a"'],
    ['empty text', '', 1, "'*** Begin Patch'", 'end of patch'],
    ['no file operation', p('*** Begin Patch', '*** End Patch'), 2, "'*** Add File: <path>', '*** Delete File: <path>', '*** Update File: <path>'", '"*** End Patch"'],
    ['no end marker', p('*** Begin Patch', '*** Delete File: a'), 3, "'*** Add File: <path>', '*** Delete File: <path>', '*** Update File: <path>' or '*** End Patch'", 'end of patch'],
    ['text after the end', p('*** Begin Patch', '*** Delete File: a', '*** End Patch', 'junk'), 4, "nothing after '*** End Patch'", '"junk"'],
    ['an unknown marker', p('*** Begin Patch', '*** Rename File: a', '*** End Patch'), 2, "'*** Add File: <path>', '*** Delete File: <path>', '*** Update File: <path>' or '*** End Patch'", '"*** Rename File: a"'],
    ['an empty path', p('*** Begin Patch', '*** Delete File:  ', '*** End Patch'), 2, 'a path after the marker', '"*** Delete File:  "'],
    ['a directory path', p('*** Begin Patch', '*** Add File: d/', '+x', '*** End Patch'), 2, 'a file path (this one ends with /)', '"*** Add File: d/"'],
    ['an update with no hunk', p('*** Begin Patch', '*** Update File: a', '*** End Patch'), 3, 'a hunk (\'@@\') for the update of "a"', '"*** End Patch"'],
    ['a header with no lines', p('*** Begin Patch', '*** Update File: a', '@@ f', '@@', ' x', '*** End Patch'), 4, "a hunk line starting with ' ', '-' or '+' after '@@'", '"@@"'],
    ['a line with no prefix in a hunk', p('*** Begin Patch', '*** Update File: a', '@@', ' x', 'y', '*** End Patch'), 5, "'@@', '*** End Patch' or '*** Add File: <path>', '*** Delete File: <path>', '*** Update File: <path>'", '"y"'],
    ['a line after the end-of-file marker', p('*** Begin Patch', '*** Update File: a', '@@', ' x', '*** End of File', '+y', '*** End Patch'), 6, "'@@', '*** End Patch' or '*** Add File: <path>', '*** Delete File: <path>', '*** Update File: <path>'", '"+y"'],
    ['an add line without +', p('*** Begin Patch', '*** Add File: a', 'x', '*** End Patch'), 3, "'*** Add File: <path>', '*** Delete File: <path>', '*** Update File: <path>' or '*** End Patch'", '"x"'],
  ])('%s → line %s', (_name, text, line, expected, found) => {
    const e = parseError(text)
    expect({ line: e.line, expected: e.expected, found: e.found }).toEqual({ line, expected, found })
    expect(e.message).toBe(`patch line ${line}: expected ${expected}, found ${found}`)
    expect(e.code).toBe('E_POLICY')
  })

  it('quotes a found line without control characters and bounds it', () => {
    const e = parseError(`\x1b[31m${'x'.repeat(200)}\n`)
    expect(e.found).not.toContain('\x1b')
    expect(e.found.length).toBeLessThan(100)
  })

  it('refuses control, invisible and bidirectional-format characters in a path, which would show the approver another name', () => {
    const bad = ['a\rREADME.md', 'a\x1b[2Kb', 'evil\u202Etxt.sh', 'in\u2066vis\u2069ible', 'zero\u200Bwidth', 'line\u2028sep', 'del\x7f', 'c1\u009b31m']
    for (const path of bad) {
      for (const marker of ['*** Add File: ', '*** Delete File: ', '*** Update File: ']) {
        const e = parseError(p('*** Begin Patch', `${marker}${path}`, '+x', '*** End Patch'))
        expect(e.line).toBe(2)
        expect(e.expected).toMatch(/a path without control, invisible or bidirectional-format characters/)
        // The quoted path shows each such character as an escape, never raw.
        expect(e.found).not.toMatch(/[\p{Cc}\p{Cf}\u2028\u2029]/u)
      }
      const m = parseError(p('*** Begin Patch', '*** Update File: ok.txt', `*** Move to: ${path}`, '*** End Patch'))
      expect(m.line).toBe(3)
    }
    // Ordinary non-ASCII names stay allowed.
    expect(parsePatch(p('*** Begin Patch', '*** Add File: docs/résumé-日本.md', '+x', '*** End Patch')).ops[0]?.path).toBe('docs/résumé-日本.md')
  })

  it('refuses added lines that would display differently from what is written (CR, escape sequences, bidi overrides)', () => {
    for (const text of ['ok\rrm -rf ~', 'x\x1b[1A\x1b[2Ky', 'if (isAdmin) \u202E } \u2066 {', 'a\u2067b', 'nul\x00']) {
      const add = parseError(p('*** Begin Patch', '*** Add File: a.txt', '+fine', `+${text}`, '*** End Patch'))
      expect(add.line).toBe(4)
      expect(add.expected).toMatch(/an added line without control characters/)
      const upd = parseError(p('*** Begin Patch', '*** Update File: a.txt', '@@', ' ctx', `+${text}`, '*** End Patch'))
      expect(upd.line).toBe(5)
      expect(upd.found).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f\u202a-\u202e\u2066-\u2069]/u)
    }
    // A tab, a CRLF line ending and non-ASCII text stay allowed.
    const ok = parsePatch(p('*** Begin Patch', '*** Add File: a.txt', '+\tindented\r', '+naïve — ok', '*** End Patch'))
    expect(ok.ops[0]).toMatchObject({ content: '\tindented\nnaïve — ok\n' })
  })

  it('refuses a non-string and an oversized patch before reading it', () => {
    expect(parseError(42 as unknown as string).expected).toBe('the patch as a string')
    expect(parseError('x'.repeat(8 * 1024 * 1024 + 1)).found).toBe(`${8 * 1024 * 1024 + 1} bytes`)
  })
})
