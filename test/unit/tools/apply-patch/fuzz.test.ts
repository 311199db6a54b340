/**
 * Grammar fuzzing: random and mutated patches never crash, hang or throw
 * anything but a typed error — parsePatch gives a Patch or a
 * PatchParseError (with a line inside the text), verifyPatch a plan or a
 * PatchVerifyError — each within a time bound. Seeded (CORDON_FUZZ_SEED,
 * printed) so a failure can be replayed; CORDON_FUZZ_PATCHES sets the count.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { PatchParseError, PatchVerifyError } from '../../../../src/tools/apply-patch/errors.js'
import { parsePatch, type Patch } from '../../../../src/tools/apply-patch/parser.js'
import { verifyPatch } from '../../../../src/tools/apply-patch/verify.js'
import { removeTempDirs, tempDir } from '../../../helpers/temp.js'
import { prng } from '../../exec-policy/shell/differential/generate.js'

afterAll(removeTempDirs)

const SEED = Number(process.env.CORDON_FUZZ_SEED ?? Date.now() % 1e9)
const COUNT = Number(process.env.CORDON_FUZZ_PATCHES ?? 3000)

const FILES = { 'a.txt': 'alpha\nbeta\ngamma\n  delta  \nbeta\n', 'b.txt': 'one\r\ntwo\r\n', 'c.txt': '' }
const PIECES = ['*** Begin Patch', '*** End Patch', '*** Add File: ', '*** Delete File: ', '*** Update File: ', '*** Move to: ', '*** End of File', '@@', '@@ beta', ' ', '-', '+', 'a.txt', 'b.txt', 'c.txt', 'new.txt', 'alpha', 'beta', 'gamma', '  delta', '\t', '\r', '\u0000', '\u202e', '💥', '/', '..', '']

function randomPatch(r: () => number): string {
  const pick = <T,>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)] as T
  const lines: string[] = r() < 0.8 ? ['*** Begin Patch'] : []
  const n = Math.floor(r() * 12)
  for (let i = 0; i < n; i++) lines.push(Array.from({ length: 1 + Math.floor(r() * 3) }, () => pick(PIECES)).join(''))
  if (r() < 0.8) lines.push('*** End Patch')
  return lines.join(r() < 0.9 ? '\n' : '\r\n') + (r() < 0.7 ? '\n' : '')
}

const VALID = [
  '*** Begin Patch\n*** Update File: a.txt\n@@\n alpha\n-beta\n+BETA\n gamma\n*** End Patch\n',
  '*** Begin Patch\n*** Add File: new.txt\n+x\n+y\n*** Delete File: c.txt\n*** End Patch\n',
  '*** Begin Patch\n*** Update File: a.txt\n*** Move to: moved.txt\n@@ gamma\n-  delta\n+delta\n*** End of File\n*** Update File: b.txt\n@@\n-two\n+2\n*** End Patch\n',
]

function mutate(text: string, r: () => number): string {
  const lines = text.split('\n')
  const i = Math.floor(r() * lines.length)
  const op = Math.floor(r() * 6)
  if (op === 0) lines.splice(i, 1)
  else if (op === 1) lines.splice(i, 0, lines[Math.floor(r() * lines.length)] ?? '')
  else if (op === 2) lines[i] = (lines[i] ?? '').slice(0, Math.floor(r() * 20))
  else if (op === 3) lines[i] = `${PIECES[Math.floor(r() * PIECES.length)]}${lines[i] ?? ''}`
  else if (op === 4) lines.reverse()
  else lines[i] = String.fromCharCode(...Array.from({ length: 8 }, () => Math.floor(r() * 0x3000)))
  return lines.join('\n')
}

/** Parse and verify; returns what happened, or throws if anything untyped escapes. */
async function exercise(text: string, cwd: string): Promise<'parse-error' | 'verify-error' | 'plan'> {
  let patch: Patch
  try {
    patch = parsePatch(text)
  } catch (e) {
    if (!(e instanceof PatchParseError)) throw e
    const lineCount = text.split('\n').length
    expect(e.line).toBeGreaterThanOrEqual(1)
    expect(e.line).toBeLessThanOrEqual(lineCount + 1)
    return 'parse-error'
  }
  try {
    await verifyPatch(patch, { cwd })
    return 'plan'
  } catch (e) {
    if (!(e instanceof PatchVerifyError)) throw e
    return 'verify-error'
  }
}

describe(`apply_patch grammar fuzzing (seed ${SEED}, ${COUNT} patches)`, () => {
  it('random and mutated patches: a plan or a typed error, each fast', async () => {
    console.log(`apply_patch fuzz: CORDON_FUZZ_SEED=${SEED} CORDON_FUZZ_PATCHES=${COUNT}`)
    const cwd = tempDir('patch-fuzz-')
    for (const [name, text] of Object.entries(FILES)) writeFileSync(join(cwd, name), text)
    const r = prng(SEED)
    const seen = { 'parse-error': 0, 'verify-error': 0, plan: 0 }
    let slowest = 0
    for (let i = 0; i < COUNT; i++) {
      const text = i % 2 ? randomPatch(r) : mutate(VALID[i % VALID.length] as string, r)
      const t0 = performance.now()
      const outcome = await exercise(text, cwd).catch((e: unknown) => {
        throw new Error(`patch #${i} (seed ${SEED}) threw an untyped error: ${String(e)}\n${JSON.stringify(text)}`)
      })
      slowest = Math.max(slowest, performance.now() - t0)
      seen[outcome]++
    }
    // The generators reach every outcome (a fuzzer that only makes parse errors tests little).
    expect(seen['parse-error']).toBeGreaterThan(0)
    expect(seen['verify-error']).toBeGreaterThan(0)
    expect(seen.plan).toBeGreaterThan(0)
    expect(slowest).toBeLessThan(250)
  }, 60_000)

  it('a quadratic hunk (repeated context against a file of the same line) is refused within the budget, not hung', async () => {
    const cwd = tempDir('patch-fuzz-')
    writeFileSync(join(cwd, 'same.txt'), 'x\n'.repeat(200_000))
    const hunk = `${' x\n'.repeat(5_000)}-y\n`
    const t0 = performance.now()
    const e = await verifyPatch(parsePatch(`*** Begin Patch\n*** Update File: same.txt\n@@\n${hunk}*** End Patch\n`), { cwd }).catch((x: unknown) => x)
    expect(e).toBeInstanceOf(PatchVerifyError)
    expect((e as PatchVerifyError).message).toContain('would compare too many lines')
    expect(performance.now() - t0).toBeLessThan(10_000)
  }, 30_000)

  it('a long patch parses in linear time', () => {
    const body = Array.from({ length: 100_000 }, (_, i) => `+line ${i}`).join('\n')
    const t0 = performance.now()
    const p = parsePatch(`*** Begin Patch\n*** Add File: big\n${body}\n*** End Patch\n`)
    expect(p.ops).toHaveLength(1)
    expect(performance.now() - t0).toBeLessThan(2_000)
  })
})
