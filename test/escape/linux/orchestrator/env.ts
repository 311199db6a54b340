/**
 * Where the orchestrator tests put workspaces, and which sandbox modes
 * they run in. Workspaces live outside /tmp: in namespace mode /tmp and
 * /var/tmp are private to the sandbox, so a workspace there would not be
 * the host's directory for a profile that does not write it.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { createSandbox } from '../../../../src/index.js'
import { repoRoot } from '../../../helpers/paths.js'

const base = process.env.CORDON_ORCH_TMP ?? join(repoRoot, 'test', '.tmp', 'orchestrator')

const made: string[] = []

export function tempDir(label: string): string {
  mkdirSync(base, { recursive: true })
  const dir = mkdtempSync(join(base, `${label}-`))
  made.push(dir)
  return dir
}

/** Remove every directory tempDir() made in this process (call from afterAll). */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
}

export type Mode = 'landlock' | 'namespaces'

/** Landlock always; namespaces when bubblewrap works here (say why when it does not). */
export function modes(): Mode[] {
  try {
    const sb = createSandbox({ mode: 'namespaces', cwd: repoRoot })
    try {
      sb.report()
    } finally {
      sb.close()
    }
    return ['landlock', 'namespaces']
  } catch (e) {
    console.warn(`[orchestrator tests] namespace mode skipped: ${(e as Error).message}`)
    return ['landlock']
  }
}
