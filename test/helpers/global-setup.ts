/**
 * vitest globalSetup for the confinement tests:
 *  - as root, create the unprivileged `cordon-probe` system user if missing;
 *  - rebuild dist/ when src/ is newer (the escape driver imports dist/);
 *  - compile the C escape probes into a temp dir under test/.tmp that every
 *    identity can read (and namespace mode can see), and hand its path to the tests (`inject('cordonProbeDir')`).
 */
import { execFile, spawnSync } from 'node:child_process'
import { readdirSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { TestProject } from 'vitest/node'
import { distIndex, makeTestTmpDir, PROBE_USER, probeSources, repoRoot } from './paths.js'

const run = promisify(execFile)

function ensureProbeUser(): void {
  if (process.getuid?.() !== 0) return
  if (spawnSync('id', ['-u', PROBE_USER]).status === 0) return
  const r = spawnSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', PROBE_USER], { encoding: 'utf8' })
  // Two vitest runs may race to create it: only fail if it still does not exist.
  if (r.status !== 0 && spawnSync('id', ['-u', PROBE_USER]).status !== 0) throw new Error(`useradd ${PROBE_USER} failed: ${r.stderr}`)
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

export default async function setup(project: TestProject): Promise<() => void> {
  ensureProbeUser()
  const [, probeDir] = await Promise.all([ensureDist(), compileProbes()])
  project.provide('cordonProbeDir', probeDir)
  return () => rmSync(probeDir, { recursive: true, force: true })
}

declare module 'vitest' {
  export interface ProvidedContext {
    cordonProbeDir: string
  }
}
