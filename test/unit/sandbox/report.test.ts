/** report(): what Landlock-only mode enforces here, and what it says it cannot. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createSandbox, UnsupportedError } from '../../../src/index.js'

const dir = mkdtempSync(join(tmpdir(), 'cordon-report-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('Landlock-mode report', () => {
  it('workspace-write: protected paths are listed as missing, not explicit (the profile asked, not the caller)', () => {
    const sb = createSandbox({ cwd: dir, mode: 'landlock' })
    const e = sb.report()
    sb.close()
    expect(e).toMatchObject({ mode: 'landlock', status: 'partial', platform: { os: 'linux', noNewPrivs: true, capabilitiesDropped: true }, network: 'off' })
    expect(e.missing).toContainEqual(expect.objectContaining({ protection: 'protected-paths', explicit: false }))
    expect(e.filesystem.writeRoots).toContain(dir)
  })

  it('protected paths the caller names are explicit: the default compat refuses to run without them', async () => {
    const sb = createSandbox({ cwd: dir, mode: 'landlock', protected: ['${cwd}/.envrc'] })
    expect(sb.report().missing).toContainEqual(expect.objectContaining({ protection: 'protected-paths', explicit: true }))
    await expect(sb.run(['true'])).rejects.toBeInstanceOf(UnsupportedError)
    sb.close()
  })

  it("compat 'hard' refuses a partial sandbox; 'best-effort' runs it and reports the gap", async () => {
    const hard = createSandbox({ cwd: dir, mode: 'landlock', compat: 'hard' })
    await expect(hard.run(['true'])).rejects.toMatchObject({ code: 'E_UNSUPPORTED', feature: expect.stringContaining('protected-paths') })
    hard.close()
    const loose = createSandbox({ cwd: dir, mode: 'landlock', compat: 'best-effort' })
    const r = await loose.run(['true'])
    loose.close()
    expect(r.exitCode).toBe(0)
    expect(r.enforcement.missing.map((m) => m.protection)).toContain('protected-paths')
  })

  it('read-only has no protected paths, so none are reported missing', () => {
    const sb = createSandbox({ cwd: dir, mode: 'landlock', profile: 'read-only' })
    const e = sb.report()
    sb.close()
    expect(e.filesystem.protected).toEqual([])
    expect(e.missing.map((m) => m.protection)).not.toContain('protected-paths')
  })
})
