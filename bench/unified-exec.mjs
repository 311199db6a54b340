// node bench/unified-exec.mjs — unified exec against its baselines, in one run:
//  1. exec_command of /bin/true through the whole chain (dispatcher, tool handler, exec
//     policy, approval skipped by an allow rule, a fresh sandbox, the
//     runtime, the result) vs sandbox.run of the same argv
//     (`/bin/sh -c /bin/true`: exec_command runs its `cmd` in /bin/sh).
//     Target ≤ 1.2×.
//  2. A terminal session's round trip — write a line, read cat's copy of
//     it — on the PTY cordon gives a command inside the sandbox, vs the same
//     through a bare PTY (util-linux `script -qc cat /dev/null`: no sandbox).
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createOrchestrator, createSandbox, createUnifiedExec, Dispatcher, ToolRouter } from '../dist/index.js'
import { race } from './lib.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))

/** One line in, resolves when `needle` has appeared `times` times in the output since. */
function roundTrip(write, listen, i) {
  const line = `ping ${i}`
  return new Promise((resolve) => {
    let seen = ''
    const off = listen((chunk) => {
      seen += chunk.toString('utf8')
      // The terminal's echo, then cat's copy.
      if (seen.split(`${line}\r\n`).length - 1 >= 2) (off(), resolve())
    })
    write(`${line}\n`)
  })
}

function barePty() {
  const child = spawn('script', ['-qc', 'cat', '/dev/null'], { stdio: ['pipe', 'pipe', 'ignore'] })
  const listeners = new Set()
  child.stdout.on('data', (c) => listeners.forEach((l) => l(c)))
  return {
    write: (s) => child.stdin.write(s),
    listen: (l) => (listeners.add(l), () => listeners.delete(l)),
    close: () => child.kill('SIGKILL'),
  }
}

function cordonPty(sb) {
  const p = sb.spawn('cat', [], { tty: { rows: 24, cols: 80 } })
  return { write: (s) => p.terminal.write(s), listen: (l) => p.terminal.onData(l), close: () => p.kill('SIGKILL'), done: p }
}

export async function benchUnifiedExec({ rounds }) {
  const rulesDir = mkdtempSync(join(tmpdir(), 'cordon-bench-rules-'))
  const rules = join(rulesDir, 'bench.rules')
  writeFileSync(rules, 'prefix_rule(pattern=["/bin/true"], decision="allow")\n')
  const options = { cwd: root, mode: 'landlock', compat: 'best-effort' }
  const sb = createSandbox(options)
  const orchestrator = createOrchestrator({ sandbox: options, rules: [rules], approvalMode: 'untrusted' })
  const ux = createUnifiedExec()
  const step = new ToolRouter([ux.execCommand, ux.writeStdin]).buildStep()
  const dispatcher = new Dispatcher({ orchestrator })
  const args = JSON.stringify({ cmd: '/bin/true', yield_time_ms: 10_000 })
  let call = 0
  const exec = async () => {
    const { output } = await dispatcher.invoke(step, { callId: `bench-${++call}`, name: ux.execCommand.name, payload: { kind: 'function', arguments: args } })
    if (!output.success) throw new Error(`exec_command failed: ${output.text}`)
  }
  const argv = ['/bin/sh', '-c', '/bin/true']
  // orchestrator.exec of the same argv: what the chain costs without the tool layer and runtime.
  const chain = await race({ run: () => sb.run(argv), orch: () => orchestrator.exec({ command: argv }), exec }, rounds)

  const cordon = cordonPty(sb)
  const bare = barePty()
  let i = 0
  await new Promise((r) => setTimeout(r, 300)) // both terminals up
  const pty = await race({ bare: () => roundTrip(bare.write, bare.listen, i++), cordon: () => roundTrip(cordon.write, cordon.listen, i++) }, rounds)
  bare.close()
  cordon.close()
  await cordon.done
  ux.close()
  sb.close()
  rmSync(rulesDir, { recursive: true, force: true })
  return { runMs: chain.run, orchMs: chain.orch, execMs: chain.exec, bareRttMs: pty.bare, cordonRttMs: pty.cordon }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const N = Number(process.env.BENCH_N ?? 200)
  const r = await benchUnifiedExec({ rounds: N })
  const ratio = r.execMs / r.runMs
  console.log(`\nunified exec, median over ${N} interleaved rounds`)
  console.log(`${'sandbox.run /bin/sh -c /bin/true'.padEnd(44)} ${r.runMs.toFixed(3).padStart(9)} ms`)
  console.log(`${'orchestrator.exec of the same'.padEnd(44)} ${r.orchMs.toFixed(3).padStart(9)} ms  ${(r.orchMs / r.runMs).toFixed(2)}×`)
  console.log(`${'exec_command /bin/true (whole chain)'.padEnd(44)} ${r.execMs.toFixed(3).padStart(9)} ms  ${ratio.toFixed(2)}×  ${ratio <= 1.2 ? 'ok' : 'OVER'} (target ≤ 1.2×)`)
  console.log(`${'PTY round trip, bare (script -qc cat)'.padEnd(44)} ${r.bareRttMs.toFixed(3).padStart(9)} ms`)
  console.log(`${'PTY round trip, cordon (cat in the sandbox)'.padEnd(44)} ${r.cordonRttMs.toFixed(3).padStart(9)} ms  ${(r.cordonRttMs / r.bareRttMs).toFixed(2)}×`)
}
