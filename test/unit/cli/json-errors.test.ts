/**
 * `cordon --json` errors from the real, minified CLI bundle (bin/cordon.js
 * loads dist/cli-bundle, rebuilt by the test setup when src/ is newer): the
 * error's `name` is its class's name, not what the minifier renamed the
 * class to (it printed `"name": "v"`).
 */
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

const bin = new URL('../../../bin/cordon.js', import.meta.url).pathname
const runBundle = new URL('../../../dist/cli-bundle/run.cjs', import.meta.url).pathname

function cordon(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }))
  })
}

describe('cordon run --json, an error', () => {
  it('runs from a minified bundle (else this test would prove nothing)', () => {
    const bundle = readFileSync(runBundle, 'utf8')
    expect(bundle).not.toMatch(/class PolicyError\b/)
    expect(bundle).toMatch(/["'`]PolicyError["'`]/) // the name, as a string
  })

  it('a profile that does not exist: a PolicyError named so', async () => {
    const r = await cordon(['run', '--json', '--profile', '/nonexistent.json', '--', 'true'])
    expect(r.code).not.toBe(0)
    const { error } = JSON.parse(r.stdout) as { error: Record<string, unknown> }
    expect(error).toMatchObject({ name: 'PolicyError', code: 'E_POLICY', where: '/nonexistent.json' })
    expect(error.message).toMatch(/cannot read profile file: ENOENT/)
  })

  it('a command that does not exist: a SetupError named so, with its errno', async () => {
    const r = await cordon(['run', '--json', '--', '/nonexistent-cordon-command'])
    expect(r.code).toBe(127)
    const { error } = JSON.parse(r.stdout) as { error: Record<string, unknown> }
    expect(error).toMatchObject({ name: 'SetupError', code: 'E_SETUP', step: 'execve', syscall: 'execve', errno: 2, errnoCode: 'ENOENT' })
  })
})
