/**
 * Issue 11, bug 2: loading the shell grammar must not block the event loop,
 * and after warm-up the first decision on a `bash -lc` script must not
 * compile anything on this thread. Ratios against a synchronous compile of
 * the same grammar in this process (compile-timing.ts explains the flag).
 */
import { describe, expect, it } from 'vitest'
import { createExecPolicy, warmUpExecPolicy, type ExecPolicy } from '../../../../src/exec-policy/index.js'
import { loadBashParser } from '../../../../src/exec-policy/shell/bash-parser.js'
import { WARM_UP_SCRIPTS } from '../../../../src/exec-policy/shell/warm-up-scripts.js'
import { compileOnThisThread, optimisingCompilerOnly, sexp, startTicks } from './compile-timing.js'

optimisingCompilerOnly()

const SCRIPTS = [
  'git log -3 | head -5',
  'git status && ls -la | wc -l',
  'cat <<EOF > out\n$x\nEOF\n',
  'for f in *; do rm "$f"; done',
  'echo "unterminated',
  'sort -k2 f | uniq -c',
]
const DECISIONS: [string, string][] = [
  ['git status && ls -la | wc -l', 'allow'],
  ['rm -rf build', 'prompt'],
  ['cat <<EOF > out\n$x\nEOF\n', 'prompt'],
]

let exec: ExecPolicy

describe('warming up the grammar', () => {
  it('compiles off the event loop: a 10 ms timer keeps firing, and the first decision compiles nothing', async () => {
    const ticks = startTicks(10)
    const warm = warmUpExecPolicy()
    const again = warmUpExecPolicy()
    exec = await createExecPolicy({}) // in flight: awaits the same load
    await Promise.all([warm, again])
    const during = ticks.stop()

    const start = performance.now()
    exec.decide(['bash', '-lc', 'git log -3 | head -5'])
    const firstDecision = performance.now() - start

    const reference = compileOnThisThread(WARM_UP_SCRIPTS)
    const report = `sync compile ${reference.ms.toFixed(0)} ms; warm-up: ${during.count} ticks, longest gap ${during.maxGap.toFixed(0)} ms; first decision ${firstDecision.toFixed(1)} ms`
    console.log(report)
    expect(during.count, report).toBeGreaterThan(10)
    expect(during.maxGap * 4, report).toBeLessThan(reference.ms)
    expect(firstDecision * 20, report).toBeLessThan(reference.ms)
  })

  it('loads once, whoever asks first', async () => {
    const parser = await loadBashParser()
    await warmUpExecPolicy()
    expect(await loadBashParser()).toBe(parser)
  })

  it('parses exactly as a grammar compiled on this thread', async () => {
    const warmed = await loadBashParser()
    const { parser: reference } = compileOnThisThread([])
    for (const script of [...WARM_UP_SCRIPTS, ...SCRIPTS]) expect(sexp(warmed, script), script).toBe(sexp(reference, script))
  })

  it.each(DECISIONS)('decides %j as before', (script, decision) => {
    expect(exec.decide(['bash', '-lc', script]).decision).toBe(decision)
  })
})
