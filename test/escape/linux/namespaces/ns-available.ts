/**
 * Copies of the compiled probes for namespace-mode tests. Whether namespace
 * mode works for an identity here is helpers/modes.ts `namespacesMissing`.
 */
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { repoRoot } from '../../../helpers/paths.js'

/**
 * The compiled probes, copied where a namespace-mode sandbox can see them.
 * The harness compiles them under the host /tmp, which namespace mode
 * replaces with a private tmpfs; test/.tmp (git-ignored) stays visible.
 */
export function visibleProbes(probeDir: string): { path(name: string): string; cleanup(): void } {
  mkdirSync(join(repoRoot, 'test', '.tmp'), { recursive: true })
  const dir = mkdtempSync(join(repoRoot, 'test', '.tmp', 'ns-probes-'))
  chmodSync(dir, 0o755)
  for (const f of readdirSync(probeDir)) copyFileSync(join(probeDir, f), join(dir, f))
  for (const f of readdirSync(dir)) chmodSync(join(dir, f), 0o755)
  return { path: (name) => join(dir, `probe-${name}`), cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}
