/**
 * The orchestrator keeps one sandbox per set of attempt options
 * (src/orchestrator/sandbox-pool.ts). With the real sandbox, in both
 * modes: a wider attempt's sandbox is never handed to the profile's
 * options (the next plain exec is confined as before), and a filesystem
 * change made between two execs — a denied directory moved and replaced
 * by a symlink to its new place — is seen by the next exec, which denies
 * the new place (a kept sandbox that reused its cached canonical paths
 * would deny only the symlink and let the directory be read). A kept
 * sandbox's $TMPDIR outlives the command that wrote it, so a git
 * repository planted there counts as written by a sandboxed command: an
 * allowMeansNoSandbox `git status` in it runs in the sandbox, not outside.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { createOrchestrator } from '../../../../src/orchestrator/index.js'
import { describeModes, removeTempDirs, tempDir } from './env.js'

afterAll(removeTempDirs)

describeModes((mode) => {
  it("a wider attempt's sandbox is not the next plain exec's", async () => {
    const ws = tempDir('kept-wide-ws')
    const out = tempDir('kept-wide-out')
    const orch = createOrchestrator({ sandbox: { cwd: ws, mode }, onApproval: () => 'approved' })
    const wide = await orch.exec({ command: ['touch', join(out, 'a')], timeout: 20_000 })
    // Denied in the profile's sandbox, then made by the approved wider retry: the probe works.
    expect(wide.attempts).toHaveLength(2)
    expect(wide.attempts[0]!.denials.length).toBeGreaterThan(0)
    expect(existsSync(join(out, 'a'))).toBe(true)
    for (const name of ['b', 'c']) {
      const plain = await orch.exec({ command: ['touch', join(out, name)], timeout: 20_000, escalateOnFailure: false })
      expect(plain.attempts).toHaveLength(1)
      expect(plain.attempts[0]!.result?.stderr).toMatch(/Permission denied|Read-only file system/)
      expect(plain.attempts[0]!.denials.length).toBeGreaterThan(0)
      expect(existsSync(join(out, name))).toBe(false)
    }
    // The profile's own writes still work in the kept sandbox.
    const inside = await orch.exec({ command: ['touch', join(ws, 'made')], timeout: 20_000, escalateOnFailure: false })
    expect(inside.result?.exitCode).toBe(0)
    expect(existsSync(join(ws, 'made'))).toBe(true)
  })

  it('a denied directory moved behind a symlink between two execs stays denied at its new place', async () => {
    const ws = tempDir('kept-fs-ws')
    const outside = tempDir('kept-fs-out')
    const secret = join(outside, 'secret')
    const moved = join(outside, 'moved')
    mkdirSync(secret)
    writeFileSync(join(secret, 'key'), 'the-key\n')
    const orch = createOrchestrator({ sandbox: { cwd: ws, mode, denyRead: [secret] }, onApproval: () => 'approved' })
    const cat = (path: string) => orch.exec({ command: ['cat', path], timeout: 20_000, escalateOnFailure: false })

    const before = await cat(join(secret, 'key'))
    expect(before.result?.exitCode).not.toBe(0)
    expect(before.result?.stdout).not.toContain('the-key')
    expect(before.result?.stderr).toMatch(/Permission denied|No such file/)

    renameSync(secret, moved)
    symlinkSync(moved, secret)
    expect(readFileSync(join(moved, 'key'), 'utf8')).toBe('the-key\n') // unconfined, the probe reads it

    const after = await cat(join(moved, 'key'))
    expect(after.result?.exitCode).not.toBe(0)
    expect(after.result?.stdout).not.toContain('the-key')
    expect(after.result?.stderr).toMatch(/Permission denied|No such file/)
    expect(after.result?.enforcement.filesystem.denyRead).toContain(moved)

    // A path beside it was readable all along: the sandbox denies the directory, not everything.
    writeFileSync(join(outside, 'open'), 'open\n')
    const open = await cat(join(outside, 'open'))
    expect(open.result?.stdout).toBe('open\n')
  })

  it("a git repository planted in a kept sandbox's $TMPDIR is a risk for a wider attempt: allowMeansNoSandbox runs it sandboxed", async () => {
    const ws = tempDir('kept-git-ws')
    const out = tempDir('kept-git-out')
    const rulesDir = tempDir('kept-git-rules')
    const rules = join(rulesDir, 'default.rules')
    writeFileSync(rules, 'prefix_rule(pattern=["git", "status"], decision="allow")\n')
    const marker = join(out, 'pwned')
    const orch = createOrchestrator({ sandbox: { cwd: ws, mode }, rules: [rules], allowMeansNoSandbox: true, allowUnsandboxed: true, onApproval: () => 'approved' })
    const plant = `mkdir "$TMPDIR/sub" && cd "$TMPDIR/sub" && git init -q && git config core.fsmonitor "echo pwned >> ${marker}" && printf %s "$TMPDIR"`
    const planted = await orch.exec({ command: ['/bin/sh', '-c', plant], timeout: 20_000, escalateOnFailure: false })
    expect(planted.result?.exitCode, planted.result?.stderr).toBe(0)
    const tmp = planted.result!.stdout
    expect(existsSync(join(tmp, 'sub', '.git'))).toBe(true) // the kept sandbox's $TMPDIR is still there
    // Unconfined, the planted hook runs: the probe works.
    execFileSync('git', ['status'], { cwd: join(tmp, 'sub'), stdio: 'ignore' })
    expect(readFileSync(marker, 'utf8')).toContain('pwned')
    writeFileSync(marker, '')
    const status = await orch.exec({ command: ['git', 'status'], cwd: join(tmp, 'sub'), timeout: 20_000 })
    expect(status.approval).toMatchObject({ source: 'policy' })
    expect(status.attempts[0]!.sandbox.widening).toBeUndefined()
    expect(status.notes.join('\n')).toMatch(/allowMeansNoSandbox: runs in the profile's sandbox instead, because git repository ".*\/sub\/\.git" lies in a write root/)
    expect(readFileSync(marker, 'utf8')).toBe('')
  })
})
