// Exec-policy decision speed: a 500-rule policy, loaded once, deciding the
// 3-segment `bash -lc "git status && ls -la | wc -l"` many times.
// Target: median ≤ 20 µs per decision.
//
// Two numbers, because the shell split is cached by script text:
//   warm — the same command again (what the target measures; agents repeat commands);
//   cold — a different script every iteration (full tree-sitter parse + walk).
//
// Needs the build: `npx tsc -p tsconfig.build.json` (imports ../dist).
import { fileURLToPath } from 'node:url'
import { median } from './lib.mjs'

const TARGET_US = 20
const COMMAND = ['bash', '-lc', 'git status && ls -la | wc -l']

/** 500 prefix rules over 100 programs, with alternatives, justifications and a few host_executables. */
function generateRules() {
  const lines = []
  for (let i = 0; i < 500; i++) {
    const program = `tool${i % 100}`
    const decision = ['allow', 'prompt', 'forbidden'][i % 3]
    lines.push(`prefix_rule(pattern = ["${program}", ["sub${i}", "alt${i}"], "--flag${i}"], decision = "${decision}", justification = "rule ${i}")`)
  }
  lines[10] = 'prefix_rule(pattern = ["git", ["status", "log", "diff"]], decision = "allow")'
  lines[20] = 'prefix_rule(pattern = ["git", "push"], decision = "prompt")'
  for (let i = 0; i < 10; i++) lines.push(`host_executable(name = "tool${i}", paths = ["/usr/bin/tool${i}"])`)
  return lines.join('\n')
}

/** Median µs of `fn(i)` over `n` calls, each timed on its own. */
function measure(fn, n) {
  for (let i = 0; i < 2000; i++) fn(i) // JIT warm-up
  const samples = new Array(n)
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint()
    fn(i)
    samples[i] = Number(process.hrtime.bigint() - t0) / 1000
  }
  return median(samples)
}

export async function benchExecPolicy({ iterations = 20_000 } = {}) {
  const { createExecPolicy } = await import('../dist/exec-policy/index.js')
  const policy = await createExecPolicy({ sources: [{ filename: 'bench.rules', text: generateRules() }] })
  const ruleCount = [...policy.policy.rulesByProgram.values()].reduce((n, rules) => n + rules.length, 0)
  const check = policy.decide(COMMAND)
  if (check.decision !== 'allow' || check.segments.length !== 3) throw new Error(`unexpected decision: ${JSON.stringify(check)}`)
  const medianUs = measure(() => policy.decide(COMMAND), iterations)
  const coldMedianUs = measure((i) => policy.decide(['bash', '-lc', `git status && ls -la d${i} | wc -l`]), Math.min(iterations, 5000) + 5000)
  return { medianUs, coldMedianUs, ruleCount, meetsTarget: medianUs <= TARGET_US }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await benchExecPolicy()
  const verdict = (us) => (us <= TARGET_US ? `ok (≤ ${TARGET_US} µs)` : `OVER (target ≤ ${TARGET_US} µs)`)
  console.log(`exec-policy, ${r.ruleCount} rules, ${JSON.stringify(COMMAND)}`)
  console.log(`  warm (same command again):   ${r.medianUs.toFixed(2)} µs  ${verdict(r.medianUs)}`)
  console.log(`  cold (new script each time): ${r.coldMedianUs.toFixed(2)} µs  ${verdict(r.coldMedianUs)}`)
}
