// Namespace mode against plain bubblewrap, measured in the same run:
// median per-spawn wall time of `bwrap --ro-bind / / /bin/true` and of
// cordon's namespace-mode `/bin/true` (default profile, a fresh workspace).
// Target: cordon ≤ plain bwrap + 1 ms. Also measured, to show where the
// difference goes: bwrap with only what the mode must have (its namespaces,
// /dev, /proc), and bwrap with all of cordon's namespaces and mounts, both
// running /bin/true directly (no launcher). Returns null (with the reason on
// stderr) when namespace mode is unavailable here.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createSandbox } from '../dist/index.js'
import { prepareLinux, releasePrepared } from '../dist/platform/linux/prepare.js'
import { race } from './lib.mjs'

/** cordon's own plan of this sandbox's launch, with its bwrap arguments (internals; the bench reads dist/). */
function planOf(sb) {
  const req = sb.planRequest() // sandbox.prepare() hands out an opaque handle
  return prepareLinux(req.mode, { policy: req.policy, explicit: req.explicit, bwrap: req.bwrap, allowUnconfinedFilesystem: req.allowUnconfinedFilesystem === true })
}

function run(file, args) {
  return new Promise((resolve) => spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], env: {} }).on('close', resolve))
}

export async function benchNamespaces({ rounds = 50 } = {}) {
  const bwrap = ['/usr/bin/bwrap', '/usr/local/bin/bwrap'].find((p) => existsSync(p))
  if (!bwrap) {
    console.error('bench: namespace mode skipped: bubblewrap is not installed')
    return null
  }
  const cwd = mkdtempSync(join(tmpdir(), 'cordon-bench-ns-'))
  const sb = createSandbox({ cwd, mode: 'namespaces', compat: 'best-effort' })
  let plan
  try {
    const probe = await sb.run(['/bin/true']).catch((e) => e)
    if (probe instanceof Error || probe.enforcement.mode !== 'namespaces') {
      console.error(`bench: namespace mode skipped: ${probe instanceof Error ? probe.message : probe.enforcement.modeReason}`)
      return null
    }
    // cordon's bwrap arguments up to the launcher (its placeholders stay until the end).
    plan = planOf(sb)
    const { args } = plan
    // Binds cordon passes by descriptor (--bind-fd N P) become path binds: this bwrap is spawned
    // from Node, without those descriptors, and a bind costs bwrap the same either way.
    const head = args.slice(0, args.indexOf('--'))
    const byPath = []
    for (let i = 0; i < head.length; i++) {
      if (head[i] === '--bind-fd' || head[i] === '--ro-bind-fd') {
        byPath.push(head[i].replace('-fd', ''), head[i + 2], head[i + 2])
        i += 2
      } else byPath.push(head[i])
    }
    const mountsOnly = [...byPath, '--', '/bin/true']
    // A contender that fails would look fast: each must run /bin/true successfully.
    for (const args of [mountsOnly]) {
      const r = spawnSync(bwrap, args, { stdio: ['ignore', 'ignore', 'pipe'], env: {} })
      if (r.status !== 0) throw new Error(`bench: bwrap ${args.join(' ')} failed: ${r.stderr}`)
    }
    // The floor the issue itself sets: its namespaces, `/` read-only, /dev and /proc — cordon's
    // arguments up to `--proc /proc`, before any profile mount.
    const requiredOnly = [...args.slice(0, args.indexOf('/proc') + 1), '--', '/bin/true']
    const contenders = {
      bwrap: () => run(bwrap, ['--ro-bind', '/', '/', '/bin/true']),
      required: () => run(bwrap, requiredOnly),
      mounts: () => run(bwrap, mountsOnly),
      cordon: () => sb.run(['/bin/true']),
    }
    const med = await race(contenders, rounds)
    return { bwrapMs: med.bwrap, requiredMs: med.required, sameMountsMs: med.mounts, cordonMs: med.cordon, rounds }
  } finally {
    if (plan) releasePrepared(plan)
    sb.close()
    rmSync(cwd, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await benchNamespaces({ rounds: Number(process.env.BENCH_N ?? 50) }))
