/**
 * Where the orchestrator tests put workspaces, and which sandbox modes
 * they run in. Workspaces live outside /tmp: in namespace mode /tmp and
 * /var/tmp are private to the sandbox, so a workspace there would not be
 * the host's directory for a profile that does not write it.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { self } from '../../../helpers/identity.js'
import { modeMissing, TEST_MODES, type TestMode } from '../../../helpers/modes.js'
import { testTmp } from '../../../helpers/paths.js'
import { describeWhere } from '../../../helpers/requirements.js'

/** Straight in test/.tmp (a shared subdirectory could not be removed safely while another file still uses it). */
const base = process.env.CORDON_ORCH_TMP ?? testTmp

const made: string[] = []

export function tempDir(label: string): string {
  mkdirSync(base, { recursive: true })
  const dir = mkdtempSync(join(base, `orch-${label}-`))
  made.push(dir)
  return dir
}

/** Remove every directory tempDir() made in this process (call from afterAll). */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
}

export type Mode = TestMode

/**
 * `sandbox mode <mode>` for each mode, with `body` declaring its tests; the
 * orchestrator runs in this process, so a mode this process's identity
 * cannot use here is skipped with the reason (requirements.ts).
 */
export function describeModes(body: (mode: Mode) => void): void {
  for (const mode of TEST_MODES) describeWhere(modeMissing(self(), mode), `sandbox mode ${mode}`, () => body(mode))
}
