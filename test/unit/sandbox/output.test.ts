/**
 * What a run returns of its output (issue 11): `encoding: 'buffer'` gives
 * the bytes as written (binary output used to be decoded as UTF-8 and
 * garbled), and `all: true` adds stdout and stderr interleaved, in the
 * order they arrived. The default stays UTF-8 strings without `all`.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, expectTypeOf, it } from 'vitest'
import { createSandbox } from '../../../src/index.js'

const dir = mkdtempSync(join(tmpdir(), 'cordon-output-'))
const sb = createSandbox({ cwd: dir, mode: 'landlock', compat: 'best-effort' })
afterAll(() => {
  sb.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Every byte value 0..255 once, on stdout; on stderr 0xff 0x00 0xfe. */
const BINARY = ['sh', '-c', `i=0; while [ $i -lt 256 ]; do printf "\\\\$(printf %o $i)"; i=$((i+1)); done; printf '\\377\\000\\376' >&2`]
const ALL_BYTES = Buffer.from(Array.from({ length: 256 }, (_, i) => i))

describe("encoding: 'buffer'", () => {
  it('returns stdout and stderr byte for byte', async () => {
    const r = await sb.run(BINARY, { encoding: 'buffer' })
    expectTypeOf(r.stdout).toEqualTypeOf<Buffer>()
    expect(Buffer.isBuffer(r.stdout)).toBe(true)
    expect(r.stdout.equals(ALL_BYTES)).toBe(true)
    expect(r.stderr.equals(Buffer.from([0xff, 0x00, 0xfe]))).toBe(true)
  })

  it('the default is UTF-8 text (invalid bytes become U+FFFD)', async () => {
    const r = await sb.run(BINARY)
    expectTypeOf(r.stdout).toEqualTypeOf<string>()
    expect(typeof r.stdout).toBe('string')
    expect(r.stderr).toBe('\uFFFD\u0000\uFFFD')
  })

  it('spawn() too, and maxBuffer cuts at a byte', async () => {
    const r = await sb.spawn(BINARY[0]!, BINARY.slice(1), { encoding: 'buffer', maxBuffer: 100 })
    expect(r.stdout.equals(ALL_BYTES.subarray(0, 100))).toBe(true)
    expect(r.outputTruncated).toBe(true)
  })
})

describe('all: stdout and stderr interleaved', () => {
  // Spaced out so each write is read before the next one is made.
  const INTERLEAVED = ['sh', '-c', 'echo out1; sleep 0.2; echo err1 >&2; sleep 0.2; echo out2; sleep 0.2; echo err2 >&2']

  it('in arrival order, as one string', async () => {
    const r = await sb.run(INTERLEAVED, { all: true })
    expect(r.all).toBe('out1\nerr1\nout2\nerr2\n')
    expect(r.stdout).toBe('out1\nout2\n')
    expect(r.stderr).toBe('err1\nerr2\n')
  })

  it('as one Buffer with encoding: buffer, and from spawn()', async () => {
    const r = await sb.spawn(INTERLEAVED[0]!, INTERLEAVED.slice(1), { all: true, encoding: 'buffer' })
    expect(r.all?.toString()).toBe('out1\nerr1\nout2\nerr2\n')
  })

  it('absent unless asked for', async () => {
    expect(await sb.run(['echo', 'x'])).not.toHaveProperty('all')
  })

  it('only what each stream kept under maxBuffer', async () => {
    const r = await sb.run(['sh', '-c', 'printf 123456; sleep 0.2; printf abcdef >&2'], { all: true, maxBuffer: 4 })
    expect(r).toMatchObject({ stdout: '1234', stderr: 'abcd', all: '1234abcd', outputTruncated: true })
  })
})
