// Landlock mode's metadata filter (issue 12): each chmod, chown, utimes or
// xattr call of the command is a round trip to the launcher's supervisor,
// which resolves the path and performs the call itself. Measured as a chmod
// loop of N calls timed inside the process (clock_gettime around the loop:
// no spawn cost), in a Landlock-mode sandbox and unconfined, interleaved
// round by round. Reports ns per call, the median ratio and its spread
// (10th–90th percentile of the per-round ratios). Returns null (with the
// reason on stderr) when there is no C compiler or the filter is not in force.
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createSandbox } from '../dist/index.js'
import { median } from './lib.mjs'

const LOOP_C = `
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
int main(int argc, char **argv) {
  struct timespec a, b;
  long n = argc > 2 ? atol(argv[2]) : 0;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (long i = 0; i < n; i++)
    if (chmod(argv[1], i & 1 ? 0600 : 0644)) { perror("chmod"); return 1; }
  clock_gettime(CLOCK_MONOTONIC, &b);
  printf("%.1f\\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / (double)n);
  return 0;
}
`

const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]

function nsPerCall(stdout, where) {
  const ns = Number(stdout.trim())
  if (!Number.isFinite(ns) || ns <= 0) throw new Error(`bench: the chmod loop ${where} printed ${JSON.stringify(stdout)}`)
  return ns
}

function unconfined(loop, file, calls) {
  return new Promise((resolve, reject) => {
    let out = ''
    const child = spawn(loop, [file, String(calls)], { stdio: ['ignore', 'pipe', 'inherit'] })
    child.stdout.on('data', (d) => (out += d))
    child.on('error', reject)
    child.on('close', () => resolve(out))
  })
}

function compile(dir) {
  writeFileSync(join(dir, 'loop.c'), LOOP_C)
  try {
    execFileSync('cc', ['-O2', '-o', join(dir, 'loop'), join(dir, 'loop.c')], { stdio: ['ignore', 'ignore', 'pipe'] })
    return join(dir, 'loop')
  } catch (e) {
    console.error(`bench: metadata skipped: no C compiler to build the chmod loop (${e.message})`)
    return null
  }
}

export async function benchMetadata({ rounds = 20, calls = 2000 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'cordon-bench-md-'))
  const sb = createSandbox({ cwd: dir, mode: 'landlock', compat: 'best-effort' })
  try {
    const loop = compile(dir)
    if (!loop) return null
    const file = join(dir, 'f')
    writeFileSync(file, 'x\n')
    const first = await sb.run([loop, file, '1'])
    if (first.exitCode !== 0 || first.enforcement.missing.some((m) => m.protection === 'file-metadata')) {
      console.error(`bench: metadata skipped: the filter is not in force here (${first.stderr.trim() || 'file-metadata missing'})`)
      return null
    }
    const inside = [], outside = [], ratios = []
    for (let i = 0; i < rounds; i++) {
      const r = await sb.run([loop, file, String(calls)])
      inside.push(nsPerCall(r.stdout, 'in the sandbox'))
      outside.push(nsPerCall(await unconfined(loop, file, calls), 'unconfined'))
      ratios.push(inside.at(-1) / outside.at(-1))
    }
    return { insideNs: median(inside), outsideNs: median(outside), ratio: median(ratios), p10: percentile(ratios, 0.1), p90: percentile(ratios, 0.9), rounds, calls }
  } finally {
    sb.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await benchMetadata({ rounds: Number(process.env.BENCH_N ?? 20) }))
