// npm run bench — cordon's speed as ratios against baselines measured in the
// same run (machines are shared and noisy: absolute times mean little).
// Targets: confined spawn ≤ 1.3× bare spawn; CLI ≤ 1.5× `node -e 0`;
// namespace mode ≤ plain bwrap + 1 ms; exec-policy decision ≤ 20 µs.
// Unified exec: exec_command of /bin/true ≤ 1.2× sandbox.run of the same
// argv; a PTY round trip against a bare `script` PTY (no target).
// namespace mode ≤ plain bwrap + 1 ms; exec-policy decision ≤ 20 µs; the
// network allowlist's proxy: ≤ 1 ms added per request, ≥ 80 % of direct
// throughput, 200 concurrent connections (bench/network.mjs).
// Measured without a target: a chmod in Landlock mode (a round trip to the
// launcher's supervisor) against a plain chmod.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { createSandbox } from '../dist/index.js'
import { race } from './lib.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const N = Number(process.env.BENCH_N ?? 200)

const bareSpawn = () =>
  new Promise((resolve) => spawn('/bin/true', [], { stdio: ['ignore', 'pipe', 'pipe'] }).on('close', resolve))

function line(label, value, base, target) {
  const ratio = value / base
  const verdict = target === undefined ? '' : ratio <= target ? `  ok (≤ ${target}×)` : `  OVER (target ≤ ${target}×)`
  console.log(`${label.padEnd(44)} ${value.toFixed(3).padStart(9)} ms  ${ratio.toFixed(2)}×${verdict}`)
}

const sb = createSandbox({ cwd: root, mode: 'landlock', compat: 'best-effort' })
/** The mode `cordon run` picks here on its defaults. */
function defaultMode() {
  const probe = createSandbox({ cwd: root, compat: 'best-effort' })
  try {
    return probe.report().mode
  } finally {
    probe.close()
  }
}
const spawnMed = await race({ bare: bareSpawn, cordon: () => sb.run(['/bin/true']) }, N)
console.log(`\nper-spawn median over ${N} interleaved rounds`)
line('bare child_process.spawn /bin/true', spawnMed.bare, spawnMed.bare)
line('cordon sandbox.run /bin/true (landlock)', spawnMed.cordon, spawnMed.bare, 1.3)
// At an agent's pace: 50 ms idle before each call. A cgroup move waits for an RCU grace
// period once the kernel is idle (docs/linux.md, "Joined ahead of the launch"); a tight loop hides it.
const pacedN = Math.max(10, Math.floor(N / 8))
const paced = await race({ bare: bareSpawn, cordon: () => sb.run(['/bin/true']) }, pacedN, { pauseMs: 50 })
console.log(`\nper-spawn median over ${pacedN} interleaved rounds, 50 ms idle before each`)
line('bare child_process.spawn /bin/true', paced.bare, paced.bare)
line('cordon sandbox.run /bin/true (landlock)', paced.cordon, paced.bare, 1.3)

const cli = (args) => () => new Promise((resolve) => spawn(process.execPath, args, { stdio: 'ignore', cwd: root }).on('close', resolve))
const cliN = Math.max(10, Math.floor(N / 8))
const run = (...opts) => cli([`${root}/bin/cordon.js`, 'run', '--compat', 'best-effort', ...opts, '--', '/bin/true'])
const cliMed = await race({ node: cli(['-e', '0']), cordon: run(), landlock: run('--mode', 'landlock') }, cliN)
console.log(`\nCLI median over ${cliN} interleaved rounds`)
line('node -e 0', cliMed.node, cliMed.node)
// The defaults pick namespace mode where bwrap and user namespaces work (issue 3);
// the Landlock line is the same run without bwrap, whose own cost is measured below.
line(`cordon run -- /bin/true (${defaultMode()})`, cliMed.cordon, cliMed.node, 1.5)
line('cordon run --mode landlock -- /bin/true', cliMed.landlock, cliMed.node, 1.5)

if (existsSync(new URL('./namespaces.mjs', import.meta.url))) {
  const { benchNamespaces } = await import('./namespaces.mjs')
  const ns = await benchNamespaces({ rounds: Math.max(20, Math.floor(N / 4)) })
  if (ns) {
    console.log('\nnamespace mode')
    console.log(`${'plain bwrap --ro-bind / / /bin/true'.padEnd(44)} ${ns.bwrapMs.toFixed(3).padStart(9)} ms`)
    // Where a difference comes from: bwrap itself with what namespace mode must have (its
    // namespaces, /dev, /proc), then with all of cordon's namespaces and mounts (no launcher).
    console.log(`${'  bwrap: required namespaces, /dev, /proc'.padEnd(44)} ${ns.requiredMs.toFixed(3).padStart(9)} ms  +${(ns.requiredMs - ns.bwrapMs).toFixed(3)} ms`)
    console.log(`${"  bwrap with cordon's namespaces and mounts".padEnd(44)} ${ns.sameMountsMs.toFixed(3).padStart(9)} ms  +${(ns.sameMountsMs - ns.bwrapMs).toFixed(3)} ms`)
    console.log(`${'cordon namespaces /bin/true'.padEnd(44)} ${ns.cordonMs.toFixed(3).padStart(9)} ms  +${(ns.cordonMs - ns.bwrapMs).toFixed(3)} ms${ns.cordonMs - ns.bwrapMs <= 1 ? '  ok (≤ +1 ms)' : '  OVER (target ≤ +1 ms)'}`)
  }
}

if (existsSync(new URL('./metadata.mjs', import.meta.url))) {
  const { benchMetadata } = await import('./metadata.mjs')
  const md = await benchMetadata({ rounds: Math.max(10, Math.floor(N / 10)) })
  if (md) {
    const us = (ns) => `${(ns / 1000).toFixed(2).padStart(9)} µs`
    console.log(`\nchmod, Landlock mode: ${md.calls} calls per run, median over ${md.rounds} interleaved rounds`)
    console.log(`${'  unconfined'.padEnd(44)} ${us(md.outsideNs)}`)
    console.log(`${'  in the sandbox (the supervisor decides)'.padEnd(44)} ${us(md.insideNs)}  ${md.ratio.toFixed(1)}× (rounds: ${md.p10.toFixed(1)}–${md.p90.toFixed(1)}×, p10–p90)`)
  }
}

if (existsSync(new URL('./exec-policy.mjs', import.meta.url))) {
  const { benchExecPolicy } = await import('./exec-policy.mjs')
  const { medianUs, coldMedianUs } = await benchExecPolicy()
  const v = (us) => (us <= 20 ? 'ok (≤ 20 µs)' : 'OVER (target ≤ 20 µs)')
  console.log('\nexec-policy decision, 3-segment bash -lc, 500 rules (policy loaded once)')
  console.log(`${'  new script every time (parse + decide)'.padEnd(44)} ${coldMedianUs.toFixed(2).padStart(9)} µs  ${v(coldMedianUs)}`)
  console.log(`${'  same script again (split cache hit)'.padEnd(44)} ${medianUs.toFixed(2).padStart(9)} µs  ${v(medianUs)}`)
}
if (existsSync(new URL('./unified-exec.mjs', import.meta.url))) {
  const { benchUnifiedExec } = await import('./unified-exec.mjs')
  // N rounds (a round is ~12 ms): at N/4 the median's spread between runs (±0.04×) was as wide as the margin to the target.
  const ux = await benchUnifiedExec({ rounds: N })
  console.log('\nunified exec (Landlock mode; exec_command runs its cmd in /bin/sh)')
  line('sandbox.run /bin/sh -c /bin/true', ux.runMs, ux.runMs)
  line('orchestrator.exec of the same', ux.orchMs, ux.runMs)
  line('exec_command /bin/true (whole chain)', ux.execMs, ux.runMs, 1.2)
  line('PTY round trip, bare (script -qc cat)', ux.bareRttMs, ux.bareRttMs)
  line('PTY round trip, cordon (cat in the sandbox)', ux.cordonRttMs, ux.bareRttMs)
}

if (existsSync(new URL('./network.mjs', import.meta.url))) {
  const { benchNetwork, printNetwork } = await import('./network.mjs')
  console.log('')
  printNetwork(await benchNetwork())
}
sb.close()

