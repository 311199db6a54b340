// node bench/orchestrator.mjs — what the orchestrator adds on top of a
// sandboxed run: policy decision, requirement, a fresh sandbox per attempt,
// denial detection. Measured as a ratio against sandbox.run in the same run.
// Target: orchestrator.exec ≤ 1.15× sandbox.run for a command that needs no prompt.
import { fileURLToPath } from 'node:url'
import { createSandbox } from '../dist/index.js'
import { createOrchestrator } from '../dist/orchestrator/index.js'
import { race } from './lib.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const N = Number(process.env.BENCH_N ?? 200)

const options = { cwd: root, mode: 'landlock', compat: 'best-effort' }
const sb = createSandbox(options)
const orch = createOrchestrator({ sandbox: options, approvalMode: 'on-request' })
const med = await race(
  {
    run: () => sb.run(['/bin/true']),
    exec: () => orch.exec({ command: ['/bin/true'] }),
    decide: () => orch.assess({ command: ['bash', '-lc', 'git status && ls -la | wc -l'] }),
  },
  N,
)
const ratio = med.exec / med.run
console.log(`\norchestrator median over ${N} interleaved rounds`)
console.log(`${'sandbox.run /bin/true'.padEnd(44)} ${med.run.toFixed(3).padStart(9)} ms`)
console.log(`${'orchestrator.exec /bin/true'.padEnd(44)} ${med.exec.toFixed(3).padStart(9)} ms  ${ratio.toFixed(2)}×  ${ratio <= 1.15 ? 'ok' : 'OVER'} (target ≤ 1.15×)`)
console.log(`${'orchestrator.assess (3-segment bash -lc)'.padEnd(44)} ${(med.decide * 1000).toFixed(1).padStart(9)} µs`)
sb.close()
