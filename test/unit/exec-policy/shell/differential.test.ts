/**
 * Issue 13 §1: whatever the splitter believes a script runs, the shell must
 * run exactly that, or the splitter must call the script opaque.
 *
 * Generated scripts (differential/generate.ts) are split by the same
 * function the policy uses, and every script the splitter accepts is run by
 * each installed shell that cordon unwraps (bash, dash, busybox sh, zsh,
 * mksh) with stub programs recording their argv (differential/shells.ts).
 * Any disagreement fails with the seed, the shell and the script.
 *
 * CI runs a fixed seed and a few hundred scripts; `npm run fuzz` runs many
 * more from a random seed (CORDON_FUZZ_SEED and CORDON_FUZZ_SCRIPTS override).
 */
import { existsSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Parser } from 'web-tree-sitter'
import { loadBashParser } from '../../../../src/exec-policy/shell/bash-parser.js'
import type { ScriptCommand } from '../../../../src/exec-policy/shell/script-reader.js'
import { splitScript } from '../../../../src/exec-policy/shell/shell-script.js'
import { FIXTURES, generateScript, prng } from './differential/generate.js'
import { disagreement, expectationOf } from './differential/model.js'
import { CANDIDATE_SHELLS, StubWorld, type Shell } from './differential/shells.js'

const SEED = Number(process.env.CORDON_FUZZ_SEED ?? 0x13)
const SCRIPTS = Number(process.env.CORDON_FUZZ_SCRIPTS ?? 400)
const CONCURRENCY = 4

const shells: Shell[] = CANDIDATE_SHELLS.filter((s) => existsSync(s.argv[0] as string))
const missing = CANDIDATE_SHELLS.filter((s) => !shells.includes(s)).map((s) => s.name)
if (missing.length > 0) console.warn(`differential test: not installed, not compared: ${missing.join(', ')}`)

let parser: Parser
let world: StubWorld

beforeAll(async () => {
  parser = await loadBashParser()
  world = new StubWorld()
})
afterAll(() => world?.close())

describe('the splitter agrees with the shells (issue 13 §1)', () => {
  it(`seed ${SEED}: ${SCRIPTS} generated scripts, each accepted one run by ${shells.map((s) => s.name).join(', ')}`, { timeout: 600_000 }, async () => {
    expect(shells.map((s) => s.name)).toContain('bash')
    const rand = prng(SEED)
    const jobs: (() => Promise<string | undefined>)[] = []
    let accepted = 0
    for (let n = 0; n < SCRIPTS; n++) {
      const script = generateScript(rand)
      const split = splitScript(parser, script)
      if (split.opaque) continue
      accepted++
      // The harness runs as root on CI: nothing may be written, or run, outside its own directories.
      if (!confined(split.commands)) continue
      const expected = expectationOf(split.commands, split.operators, FIXTURES)
      if (expected.unpredictable) continue
      world.addStubs(split.commands.map((c) => c.argv[0] as string))
      for (const shell of shells) {
        jobs.push(async () => {
          const why = disagreement(expected, await world.run(shell, script))
          return why && `seed ${SEED}, script #${n}, ${shell.name}: ${why}\n  script: ${JSON.stringify(script)}`
        })
      }
    }
    const failures = (await runAll(jobs, CONCURRENCY)).filter((f): f is string => f !== undefined)
    expect(failures.slice(0, 10).join('\n')).toBe('')
    // The generator must keep reaching the splitter's accepting side, or the comparison proves nothing.
    expect(accepted).toBeGreaterThan(SCRIPTS / 4)
  })
})

/** Writes go to the run's directory (or /dev/null) and programs are found through PATH (the stubs). */
function confined(commands: readonly ScriptCommand[]): boolean {
  return commands.every(
    (c) => !(c.argv[0] as string).includes('/') && (c.redirects ?? []).every((r) => r.op === '<' || r.op === '<&' || r.op === '>&' || r.target === '/dev/null' || !(r.target.includes('/') || r.target === '.' || r.target === '..')),
  )
}

async function runAll<T>(jobs: readonly (() => Promise<T>)[], limit: number): Promise<T[]> {
  const out: T[] = new Array(jobs.length)
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < jobs.length) {
      const i = next++
      out[i] = await (jobs[i] as () => Promise<T>)()
    }
  }
  await Promise.all(Array.from({ length: limit }, worker))
  return out
}
