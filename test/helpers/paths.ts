/** Fixed locations the escape harness needs. */
import { chmodSync, mkdirSync, mkdtempSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const driverPath = join(repoRoot, 'test', 'helpers', 'driver.mjs')
export const distIndex = join(repoRoot, 'dist', 'index.js')
export const probeSources = join(repoRoot, 'test', 'escape', 'linux', 'probes')
/** The system user the unprivileged pass runs as when the tests run as root. */
export const PROBE_USER = 'cordon-probe'

/**
 * Where escape tests keep their temp dirs and compiled probes: test/.tmp
 * (git-ignored), not os.tmpdir(). Namespace mode gives the sandbox a
 * private tmpfs on /tmp, so anything under the host /tmp is invisible
 * inside it, and the same probes must run unchanged in both modes.
 */
export const testTmp = join(repoRoot, 'test', '.tmp')

export function makeTestTmpDir(prefix: string): string {
  mkdirSync(testTmp, { recursive: true, mode: 0o755 })
  chmodSync(testTmp, 0o755) // traversable by the unprivileged identity
  const dir = mkdtempSync(join(testTmp, prefix))
  chmodSync(dir, 0o755)
  return dir
}
