import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Parser } from 'web-tree-sitter'
import { PolicyError } from '../../../../src/errors.js'
import { parsePolicy } from '../../../../src/exec-policy/index.js'
import { loadBashParser } from '../../../../src/exec-policy/shell/bash-parser.js'
import { splitScript } from '../../../../src/exec-policy/shell/shell-script.js'

/** mulberry32: tiny seeded PRNG, so a failure reproduces from its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const VALID = readFileSync(fileURLToPath(new URL('../rules/fixtures/default.rules', import.meta.url)), 'utf8')
/** Fragments that steer mutations towards the parser's interesting corners. */
const FRAGMENTS = ['(', ')', '[', ']', ',', '=', '"', "'", '"""', '\\', '\n', '  ', '#', '+', 'prefix_rule', 'None', 'r"', '\\x4', '\\u12', '[[[[', '\r', '\t', 'match', 'pattern', '"a b', ';']
const BUDGET_MS = 2500
const MIN_ITERATIONS = 2000

function randomBytes(rand: () => number): string {
  const len = Math.floor(rand() * 200)
  let s = ''
  for (let i = 0; i < len; i++) s += String.fromCharCode(rand() < 0.8 ? 32 + Math.floor(rand() * 95) : Math.floor(rand() * 0x3000))
  return s
}

function mutate(rand: () => number, text: string): string {
  let s = text
  const edits = 1 + Math.floor(rand() * 4)
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(rand() * (s.length + 1))
    const choice = rand()
    if (choice < 0.35) s = s.slice(0, at) + s.slice(at + 1 + Math.floor(rand() * 8))
    else if (choice < 0.7) s = s.slice(0, at) + (FRAGMENTS[Math.floor(rand() * FRAGMENTS.length)] as string) + s.slice(at)
    else s = s.slice(0, at) + s.slice(Math.floor(rand() * s.length))
  }
  return s
}

/** Parse and require: success, or a PolicyError whose `where` is `file:line:col`. */
function parseOnlyPolicyErrors(text: string, seed: number): 'ok' | 'error' {
  try {
    parsePolicy(text, 'fuzz.rules')
    return 'ok'
  } catch (err) {
    if (!(err instanceof PolicyError)) throw new Error(`seed ${seed}: non-PolicyError ${String(err)} for ${JSON.stringify(text.slice(0, 200))}`)
    expect(err.where, `seed ${seed}`).toMatch(/^fuzz\.rules:\d+:\d+$/)
    return 'error'
  }
}

describe('fuzzing the rules parser', () => {
  it('random bytes and mutated valid files: no crash, no hang, only PolicyError', () => {
    const rand = prng(0xc0d0)
    const deadline = Date.now() + BUDGET_MS
    const counts = { ok: 0, error: 0 }
    let i = 0
    // At least MIN_ITERATIONS whatever the load (a shared CI box can be slow), then until the budget runs out.
    for (; i < 20_000 && (i < MIN_ITERATIONS || Date.now() < deadline); i++) {
      const text = i % 3 === 0 ? randomBytes(rand) : mutate(rand, VALID)
      counts[parseOnlyPolicyErrors(text, i)]++
    }
    expect(counts.error).toBeGreaterThan(0)
    expect(counts.ok).toBeGreaterThan(0) // some mutations stay valid: the fuzzer is not only hitting the first byte
  })

  it('deep nesting is an error, not a stack overflow', () => {
    expect(parseOnlyPolicyErrors(`x = ${'['.repeat(100_000)}`, -1)).toBe('error')
    expect(parseOnlyPolicyErrors(`x = ${'('.repeat(100_000)}`, -2)).toBe('error')
    expect(parseOnlyPolicyErrors(`x = "a"${' + "a"'.repeat(20_000)}`, -3)).toBe('ok')
  })
})

describe('fuzzing the shell splitter', () => {
  let parser: Parser
  beforeAll(async () => {
    parser = await loadBashParser()
  })

  it('never throws and never returns a command with an unexpanded metacharacter', () => {
    const rand = prng(7)
    const pieces = ['git', 'status', '&&', '||', ';', '|', '&', '$(', ')', '`', '"', "'", '$X', '*', '{a,b}', '>', '<', '\n', '\\', '(', 'ls', '-la', '~', '#', '=', ' ', '-3', '10#', '0x1F', '2', '$((', '))', '{1..2}', '[1]']
    const deadline = Date.now() + 1500
    for (let i = 0; i < 5000 && (i < 500 || Date.now() < deadline); i++) {
      let script = ''
      const n = 1 + Math.floor(rand() * 12)
      for (let j = 0; j < n; j++) script += (pieces[Math.floor(rand() * pieces.length)] as string) + (rand() < 0.6 ? ' ' : '')
      const split = splitScript(parser, script)
      if (split.opaque) continue
      // Without quoting in the input, a plain split can only contain words made of plain pieces;
      // a glob character only in a word marked as a glob.
      if (!/["'\\]/.test(script)) {
        for (const { argv, globs } of split.commands) {
          argv.forEach((word, i) => {
            expect(word, JSON.stringify(script)).not.toMatch(/[$`<>()&|;]|^~|\{[^}]*,[^}]*\}/)
            if (/[*?[]/.test(word)) expect(globs?.[i], JSON.stringify(script)).toBeDefined()
          })
        }
      }
    }
  })
})
