/**
 * Namespace mode's placeholders (mount points for protected paths that do
 * not exist yet) live in the host workspace while a run is active and for
 * two seconds after. A host `git status` must not list them and `git add -A`
 * must not stage them: an agent runtime that auto-commits would otherwise
 * commit `.bashrc/`, `.codex/`, … into the user's repository.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect } from 'vitest'
import { createSandbox } from '../../../../src/index.js'
import { makeTestTmpDir } from '../../../helpers/paths.js'
import { namespacesMissing } from '../../../helpers/modes.js'
import { self } from '../../../helpers/identity.js'
import { itWhere } from '../../../helpers/requirements.js'

const made: string[] = []
afterAll(() => made.forEach((d) => spawnSync('rm', ['-rf', d])))

const git = (ws: string, ...args: string[]) => {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd: ws, encoding: 'utf8' })
  expect(r.status, r.stderr).toBe(0)
  return r.stdout
}

describe('placeholders and git (namespace mode)', () => {
  const ws = makeTestTmpDir('ph-git-')
  made.push(ws)
  itWhere(namespacesMissing(self()), 'while a run is active and after it, git status is clean and git add stages nothing', async () => {
    git(ws, 'init', '-q')
    mkdirSync(join(ws, '.vscode')) // .vscode/tasks.json is protected: a placeholder inside .vscode
    const sb = createSandbox({ cwd: ws, mode: 'namespaces' })
    const p = sb.spawn('sh', ['-c', 'echo started; read line'], { stdin: 'pipe' })
    await new Promise<void>((resolve) => p.stdout!.on('data', (d: Buffer) => d.toString().includes('started') && resolve()))
    // The placeholders are there on the host (this test would prove nothing otherwise)…
    for (const ph of ['.bashrc', '.codex', '.cordon', '.vscode/tasks.json']) expect(statSync(join(ws, ph)).isDirectory(), ph).toBe(true)
    expect(readdirSync(join(ws, '.bashrc'))).toHaveLength(1) // …each holding this process's lease
    // …and git sees nothing of them.
    expect(git(ws, 'status', '--porcelain', '--untracked-files=all')).toBe('')
    git(ws, 'add', '-A')
    expect(git(ws, 'diff', '--cached', '--name-only')).toBe('')
    p.stdin!.end('go\n')
    expect((await p).exitCode).toBe(0)
    // Kept two seconds after the run (the next run reuses them): still invisible to git.
    expect(existsSync(join(ws, '.bashrc'))).toBe(true)
    expect(git(ws, 'status', '--porcelain', '--untracked-files=all')).toBe('')
    sb.close()
    expect(existsSync(join(ws, '.bashrc'))).toBe(false)
  })
})
