/** Fixed locations the escape harness needs. */
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const driverPath = join(repoRoot, 'test', 'helpers', 'driver.mjs')
export const distIndex = join(repoRoot, 'dist', 'index.js')
export const launcherPath = join(repoRoot, 'build', 'Release', 'cordon-launcher')
export const probeSources = join(repoRoot, 'test', 'escape', 'linux', 'probes')
/** The system user the unprivileged pass runs as when the tests run as root. */
export const PROBE_USER = 'cordon-probe'
