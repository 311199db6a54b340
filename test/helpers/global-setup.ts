/**
 * vitest globalSetup:
 *  - as root, create the unprivileged `cordon-probe` system user if missing;
 *  - give the run its own temp root (scratch.ts): TMPDIR and XDG_RUNTIME_DIR
 *    of every test process and driver point into it;
 *  - rebuild dist/ when src/ is newer (the escape driver imports dist/);
 *  - compile the C escape probes into a temp dir under test/.tmp that every
 *    identity can read (and namespace mode can see), when there is a compiler;
 *  - find what this host offers the tests (host.ts) and hand it to them,
 *    with the probes' path (`inject('cordonHost')`, `inject('cordonProbeDir')`).
 * When the run ends: remove the probes and the temp root, print what the
 * host lacked, and fail the run if the suite left anything behind.
 */
import { execFile, spawnSync } from 'node:child_process'
import { readdirSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { TestProject } from 'vitest/node'
import { baseIdentities, compilerMissing, probeIdentities, requiredByEnv, type HostFacts, type Missing } from './host.js'
import { distIndex, makeTestTmpDir, PROBE_USER, probeSources, repoRoot } from './paths.js'
import { createScratch, finishScratch, testTmpEntries, type Scratch } from './scratch.js'

const run = promisify(execFile)

/** Undefined when the user exists (or the test process is not root); otherwise why useradd failed. */
function ensureProbeUser(): string | undefined {
  if (process.getuid?.() !== 0) return undefined
  if (spawnSync('id', ['-u', PROBE_USER]).status === 0) return undefined
  const r = spawnSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', PROBE_USER], { encoding: 'utf8' })
  // Two vitest runs may race to create it: only a failure if it still does not exist.
  if (r.status !== 0 && spawnSync('id', ['-u', PROBE_USER]).status !== 0) return (r.stderr || r.error?.message || `exit ${r.status}`).trim()
  return undefined
}

function newestMtime(dir: string): number {
  let newest = 0
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    newest = Math.max(newest, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs)
  }
  return newest
}

function mtimeOrZero(p: string): number {
  try {
    return statSync(p).mtimeMs
  } catch {
    return 0
  }
}

async function ensureDist(): Promise<void> {
  if (mtimeOrZero(distIndex) >= newestMtime(join(repoRoot, 'src'))) return
  try {
    await run('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: repoRoot })
    await run(process.execPath, ['scripts/bundle-cli.mjs'], { cwd: repoRoot }) // bin/cordon.js loads the bundle
  } catch (err) {
    // tsc still emits on type errors elsewhere in src/: only a missing dist/ is fatal.
    if (!mtimeOrZero(distIndex)) throw err
    console.warn(`[cordon globalSetup] tsc reported errors; using the emitted dist/: ${(err as { stdout?: string }).stdout ?? err}`)
  }
}

async function compileProbes(): Promise<string> {
  const dir = makeTestTmpDir('probes-') // readable by the unprivileged identity, visible in both modes
  const sources = readdirSync(probeSources).filter((f) => f.endsWith('.c'))
  await Promise.all(
    sources.map((src) =>
      run('cc', ['-O1', '-Wall', '-Wextra', '-pthread', '-o', join(dir, `probe-${src.slice(0, -2)}`), join(probeSources, src)]),
    ),
  )
  return dir
}

/** Point this process (and so every test worker, forked after setup) at the run's temp root; returns the undo. */
function useScratch(scratch: Scratch): () => void {
  const saved = { TMPDIR: process.env.TMPDIR, XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR }
  Object.assign(process.env, scratch.env[process.getuid!()])
  return () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
  }
}

/** One line per thing this host lacked, saying whether the tests that needed it were skipped or failed. */
function summary(facts: HostFacts): string | undefined {
  const all: (Missing | undefined)[] = [facts.compiler, ...Object.values(facts.identities).map((i) => i.missing), ...Object.values(facts.namespaces)]
  const missing = [...new Map(all.filter((m): m is Missing => m !== undefined).map((m) => [m.reason, m])).values()]
  if (!missing.length) return undefined
  const required = requiredByEnv()
  const lines = missing.map((m) => {
    const failed = m.requirement !== undefined && required.has(m.requirement)
    return `  - ${failed ? `failed (CORDON_TEST_REQUIRE=${process.env.CORDON_TEST_REQUIRE})` : 'skipped'}: ${m.reason}`
  })
  const hint = missing.some((m) => m.requirement !== undefined && !required.has(m.requirement)) ? ' (CI sets CORDON_TEST_REQUIRE=all: a missing requirement fails there)' : ''
  return `[cordon tests] what this host lacked, and what became of the tests that needed it${hint}:\n${lines.join('\n')}`
}

export default async function setup(project: TestProject): Promise<() => void> {
  requiredByEnv() // a misspelt CORDON_TEST_REQUIRE fails the run at once
  const testTmpBefore = testTmpEntries()
  const base = baseIdentities(ensureProbeUser())
  const scratch = createScratch(Object.values(base).filter((i) => !i.missing))
  const restoreEnv = useScratch(scratch)
  const compiler = compilerMissing()
  let probeDir = ''
  let facts: HostFacts
  try {
    probeDir = (await Promise.all([ensureDist(), compiler ? '' : compileProbes()]))[1]
    const { identities, namespaces } = await probeIdentities(base, scratch.env)
    facts = { identities, compiler, namespaces, scratch: scratch.env }
  } catch (err) {
    if (probeDir) rmSync(probeDir, { recursive: true, force: true })
    restoreEnv()
    finishScratch(scratch, testTmpBefore)
    throw err
  }
  project.provide('cordonHost', facts)
  project.provide('cordonProbeDir', probeDir)
  return () => {
    if (probeDir) rmSync(probeDir, { recursive: true, force: true })
    restoreEnv()
    const left = finishScratch(scratch, testTmpBefore)
    const lacked = summary(facts)
    if (lacked) console.warn(lacked)
    if (left.length) {
      throw new Error(`the test run left ${left.length} file(s) or dir(s) behind (now removed); the test or SDK code that made each must remove it:\n${left.map((p) => `  ${p}`).join('\n')}`)
    }
  }
}

declare module 'vitest' {
  export interface ProvidedContext {
    cordonProbeDir: string
    cordonHost: HostFacts
  }
}
