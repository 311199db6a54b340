/**
 * The real-runner workflow (.github/workflows/real-runners.yml) cannot run
 * here. What can be checked offline: GitHub's workflow schema
 * (@action-validator/cli, which also proves the validator catches a broken
 * file), and the properties the workflow exists for — every job requires
 * its native sandbox (CORDON_TEST_REQUIRE=all, the sandbox gate before the
 * suite), the prebuilds are built natively per platform and merged.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { repoRoot } from '../../helpers/paths.js'
import { removeTempDirs, tempDir } from '../../helpers/temp.js'

const WORKFLOW = join(repoRoot, '.github/workflows/real-runners.yml')
const validator = join(repoRoot, 'node_modules/@action-validator/cli/cli.mjs')
const validate = (file: string) => spawnSync(process.execPath, [validator, file], { encoding: 'utf8', timeout: 60_000 })
const text = readFileSync(WORKFLOW, 'utf8')
afterAll(removeTempDirs)

describe('real-runners workflow (validated offline; not yet run)', () => {
  it('passes GitHub\'s workflow schema', () => {
    const r = validate(WORKFLOW)
    expect(r.stderr + r.stdout).toBe('')
    expect(r.status).toBe(0)
  })

  it('the validator refuses a broken copy (so the check above can fail)', () => {
    const broken = join(tempDir('cordon-workflow-'), 'broken.yml')
    // Well-formed YAML, wrong for GitHub: a job without `runs-on` (misspelt).
    writeFileSync(broken, text.replace('runs-on: windows-2022', 'runs_on: windows-2022'))
    const r = validate(broken)
    expect(r.status).not.toBe(0)
    expect(r.stdout + r.stderr).toMatch(/runs_on|runs-on/)
  })

  it('requires the native sandbox: CORDON_TEST_REQUIRE=all, and the sandbox gate runs before each suite', () => {
    expect(text).toMatch(/^env:\n(?: {2}.*\n)*? {2}CORDON_TEST_REQUIRE: all$/m)
    const jobs = text.split(/^ {2}(?=\w[\w-]*:\n)/m).slice(1)
    const suites = jobs.filter((j) => j.includes('npx vitest run'))
    expect(suites.map((j) => j.split(':')[0])).toEqual(['macos', 'windows'])
    for (const j of suites) {
      const gate = j.indexOf('node scripts/ci-require-sandbox.mjs')
      expect(gate).toBeGreaterThan(0)
      expect(gate).toBeLessThan(j.indexOf('npx vitest run'))
    }
  })

  it('runs on macos-14 (arm64) and windows-2022, and merges the darwin-arm64, darwin-x64 and win32-x64 prebuilds', () => {
    expect(text).toContain('runner: macos-14')
    expect(text).toContain('runs-on: windows-2022')
    expect(text).toMatch(/needs: \[macos, windows\]/)
    expect(text).toContain('for p in darwin-arm64 darwin-x64 win32-x64; do')
  })
})
