/**
 * Finding the repositories below the write roots (issue 13 §7): submodules
 * from `.gitmodules` wherever they are, then a bounded breadth-first walk
 * that never follows a symlink and never looks inside a `.git`.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { findRepositories } from '../../../src/profile/git-repos.js'

let w: string
beforeEach(() => {
  w = realpathSync(mkdtempSync(join(tmpdir(), 'cordon-test-repos-')))
  mkdirSync(join(w, '.git'))
})
afterEach(() => rmSync(w, { recursive: true, force: true }))

const git = (...p: string[]) => join(w, ...p, '.git')

describe('findRepositories', () => {
  it('finds nested .git directories and files, shallowest first, not the known ones', () => {
    mkdirSync(git('sub'), { recursive: true })
    mkdirSync(join(w, 'a', 'b'), { recursive: true })
    writeFileSync(git('a', 'b'), 'gitdir: ../../.git/modules/b\n')
    mkdirSync(join(w, '.git', 'inner', '.git'), { recursive: true }) // inside a .git: not looked at
    expect(findRepositories([w], [join(w, '.git')])).toEqual({ gits: [git('sub'), git('a', 'b')], complete: true })
  })

  it('never follows a symlink', () => {
    const elsewhere = realpathSync(mkdtempSync(join(tmpdir(), 'cordon-test-elsewhere-')))
    mkdirSync(join(elsewhere, 'r', '.git'), { recursive: true })
    symlinkSync(elsewhere, join(w, 'link'))
    expect(findRepositories([w], [join(w, '.git')]).gits).toEqual([])
    rmSync(elsewhere, { recursive: true, force: true })
  })

  it('submodules come from .gitmodules at any depth; paths that leave the root are ignored', () => {
    mkdirSync(git('deep', 'er', 'still', 'deeper', 'mod'), { recursive: true })
    writeFileSync(join(w, '.gitmodules'), '[submodule "m"]\n\tpath = deep/er/still/deeper/mod\n[submodule "x"]\n\tpath = ../../etc\n')
    const found = findRepositories([w], [join(w, '.git')], { maxEntries: 512, maxDepth: 1, maxFound: 32 })
    expect(found.gits).toEqual([git('deep', 'er', 'still', 'deeper', 'mod')])
  })

  it('says when a bound stopped the walk', () => {
    for (let i = 0; i < 20; i++) mkdirSync(join(w, `d${i}`))
    expect(findRepositories([w], [], { maxEntries: 10, maxDepth: 3, maxFound: 32 }).complete).toBe(false)
    expect(findRepositories([w], [], { maxEntries: 512, maxDepth: 3, maxFound: 32 }).complete).toBe(true)
  })
})
