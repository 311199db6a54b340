/**
 * Protected paths with git resolved: `.git` directories as they are, `.git`
 * files (worktrees, submodules) followed to where git reads hooks and
 * config, and no repository → nothing masked (git init must work).
 */
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { PolicyError } from '../../../../../src/errors.js'
import { expandProtected, MAX_BIND_SOURCES, protectAndPlan, removeCreated, splitGitPath } from '../../../../../src/platform/linux/namespaces/bwrap-protect.js'
import { planMounts } from '../../../../../src/platform/linux/namespaces/bwrap-mounts.js'
import { fdSources } from '../../../../../src/platform/linux/namespaces/bwrap-args.js'

let base: string
beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'cordon-test-protect-')))
})
afterEach(() => rmSync(base, { recursive: true, force: true }))

const gitPaths = (w: string) => [join(w, '.git/hooks'), join(w, '.git/config'), join(w, '.bashrc')]

describe('expandProtected', () => {
  it('splits a path at its .git component', () => {
    expect(splitGitPath('/w/.git/hooks')).toEqual({ git: '/w/.git', rest: 'hooks' })
    expect(splitGitPath('/w/.bashrc')).toBeNull()
  })

  it('keeps the paths of a .git directory', () => {
    const w = join(base, 'w')
    mkdirSync(join(w, '.git'), { recursive: true })
    expect(expandProtected(gitPaths(w), [w]).paths.sort()).toEqual(gitPaths(w).sort())
  })

  it('with no repository, leaves git paths alone and says so', () => {
    const w = join(base, 'w')
    mkdirSync(w)
    const r = expandProtected(gitPaths(w), [w])
    expect(r.paths).toEqual([join(w, '.bashrc')])
    expect(r.notes.join()).toContain('no git repository')
  })

  it('follows a worktree .git file to the common dir, and protects the file itself', () => {
    const main = join(base, 'main')
    const wt = join(base, 'wt')
    mkdirSync(join(main, '.git/worktrees/wt'), { recursive: true })
    writeFileSync(join(main, '.git/worktrees/wt/commondir'), '../..\n')
    writeFileSync(join(main, '.git/worktrees/wt/config.worktree'), '')
    mkdirSync(wt)
    writeFileSync(join(wt, '.git'), `gitdir: ${join(main, '.git/worktrees/wt')}\n`)
    const r = expandProtected(gitPaths(wt), [wt, main])
    expect(r.paths.sort()).toEqual(
      [join(wt, '.git'), join(main, '.git/hooks'), join(main, '.git/config'), join(main, '.git/worktrees/wt/config.worktree'), join(main, '.git/worktrees/wt/commondir'), join(wt, '.bashrc')].sort(),
    )
    expect(r.removeIfCreated).toEqual([])
  })

  it("watches a repository's missing commondir (it would redirect config and hooks; it cannot be masked)", () => {
    const w = join(base, 'plain')
    mkdirSync(join(w, '.git/hooks'), { recursive: true })
    const r = expandProtected(gitPaths(w), [w])
    expect(r.removeIfCreated).toEqual([join(w, '.git/commondir')])
    expect(r.paths).not.toContain(join(w, '.git/commondir'))
    expect(r.notes.join()).toContain('commondir')
  })

  it('follows a submodule .git file with a relative gitdir', () => {
    const w = join(base, 'w')
    mkdirSync(join(w, '.git/modules/sub'), { recursive: true })
    mkdirSync(join(w, 'sub'))
    writeFileSync(join(w, 'sub/.git'), 'gitdir: ../.git/modules/sub\n')
    const r = expandProtected([join(w, 'sub/.git/hooks')], [w])
    expect(r.paths.sort()).toEqual([join(w, 'sub/.git'), join(w, '.git/modules/sub/hooks')].sort())
  })

  it('refuses a gitdir reached through a symlink planted in a writable root', () => {
    const w = join(base, 'w')
    mkdirSync(join(base, 'elsewhere/.git'), { recursive: true })
    mkdirSync(w)
    symlinkSync(join(base, 'elsewhere'), join(w, 'link'))
    writeFileSync(join(w, '.git'), 'gitdir: link/.git\n')
    expect(() => expandProtected(gitPaths(w), [w])).toThrow(PolicyError)
  })
})

describe('nested repositories (issue 13 §7)', () => {
  const plan = (w: string) => (paths: string[]) => planMounts({ writeRoots: [w], protectedPaths: paths, denyRead: [] })
  const repo = (dir: string) => {
    mkdirSync(join(dir, '.git', 'hooks'), { recursive: true })
    writeFileSync(join(dir, '.git', 'config'), '')
  }

  it("protect each nested repository's hooks and config like the workspace's, and a submodule's .git file itself", () => {
    const w = join(base, 'w')
    repo(w)
    repo(join(w, 'sub'))
    mkdirSync(join(w, '.git', 'modules', 'm', 'hooks'), { recursive: true })
    writeFileSync(join(w, '.git', 'modules', 'm', 'config'), '')
    mkdirSync(join(w, 'm'))
    writeFileSync(join(w, 'm', '.git'), 'gitdir: ../.git/modules/m\n')
    const r = protectAndPlan(gitPaths(w), [w], plan(w))
    expect(r.expansion.paths).toEqual(expect.arrayContaining([join(w, 'sub/.git/hooks'), join(w, 'sub/.git/config'), join(w, 'm/.git'), join(w, '.git/modules/m/hooks'), join(w, '.git/modules/m/config')]))
    expect(r.missing).toEqual([])
  })

  it('only as many as the launch can bind; the rest is reported missing, and the launch is not refused', () => {
    const w = join(base, 'w')
    repo(w)
    for (let i = 0; i < 30; i++) repo(join(w, `r${String(i).padStart(2, '0')}`, 'x'))
    const r = protectAndPlan(gitPaths(w), [w], plan(w))
    expect(fdSources(r.mounts.ops).length).toBeLessThanOrEqual(MAX_BIND_SOURCES)
    expect(r.expansion.paths).toContain(join(w, 'r00/x/.git/config'))
    expect(r.missing).toMatchObject([{ protection: 'nested-repositories', explicit: false, reason: expect.stringContaining(join(w, 'r29/x/.git')) }])
  })

  it('a nested repository that cannot be protected (gitdir through a planted symlink, a hard-linked config) is reported, not fatal', () => {
    const w = join(base, 'w')
    repo(w)
    mkdirSync(join(base, 'elsewhere/.git'), { recursive: true })
    mkdirSync(join(w, 'a'))
    symlinkSync(join(base, 'elsewhere'), join(w, 'link'))
    writeFileSync(join(w, 'a', '.git'), 'gitdir: ../link/.git\n')
    repo(join(w, 'b'))
    linkSync(join(w, 'b/.git/config'), join(w, 'b-config-link'))
    const r = protectAndPlan(gitPaths(w), [w], plan(w))
    expect(r.missing[0]?.reason).toMatch(/a\/\.git: .*symlink/)
    expect(r.missing[0]?.reason).toMatch(/b\/\.git: .*hard link/)
  })

  it('nothing is looked for when the profile protects no .git path', () => {
    const w = join(base, 'w')
    repo(join(w, 'sub'))
    expect(protectAndPlan([join(w, '.bashrc')], [w], plan(w)).expansion.paths).toEqual([join(w, '.bashrc')])
  })
})

describe('removeCreated (a commondir the command made, after the run)', () => {
  it('unlinks a file or a symlink (never its target), leaves a directory and says so', () => {
    const w = mkdtempSync(join(tmpdir(), 'cordon-test-commondir-'))
    try {
      mkdirSync(join(w, 'a/.git'), { recursive: true })
      mkdirSync(join(w, 'b/.git'), { recursive: true })
      mkdirSync(join(w, 'c/.git/commondir/keep'), { recursive: true })
      mkdirSync(join(w, 'target'))
      writeFileSync(join(w, 'target/f'), 'x')
      writeFileSync(join(w, 'a/.git/commondir'), 'evil\n')
      symlinkSync(join(w, 'target'), join(w, 'b/.git/commondir'))
      const notes = removeCreated([join(w, 'a/.git/commondir'), join(w, 'b/.git/commondir'), join(w, 'c/.git/commondir'), join(w, 'd/.git/commondir')], [w])
      expect(existsSync(join(w, 'a/.git/commondir'))).toBe(false)
      expect(existsSync(join(w, 'b/.git/commondir'))).toBe(false)
      expect(readFileSync(join(w, 'target/f'), 'utf8')).toBe('x')
      expect(existsSync(join(w, 'c/.git/commondir/keep'))).toBe(true)
      expect(notes).toHaveLength(3)
      expect(notes[2]).toContain('left there')
    } finally {
      rmSync(w, { recursive: true, force: true })
    }
  })
})
