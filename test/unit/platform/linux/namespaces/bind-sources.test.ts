/**
 * Namespace mode hands bwrap the binds whose source lies inside a write root
 * (pins, protected paths) as descriptors, opened without following symlinks
 * (bwrap --bind-fd). A sandbox still running in the same workspace can swap
 * such a path for a symlink at any moment — a red-team run swapped `.git`
 * with a link to ~/.ssh in a loop and, given paths, bwrap mounted ~/.ssh
 * read-write into the next sandbox. Here the swap is made, deterministically,
 * after the launch was planned and before its sources are opened: the launch
 * must refuse. (A swap after the open cannot redirect the mount — the
 * descriptor is the checked directory — but it cannot be timed from here
 * against bwrap's own steps, so it is not a test.)
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { SetupError } from '../../../../../src/errors.js'
import { createSandbox } from '../../../../../src/index.js'
import { loadNative } from '../../../../../src/native/load.js'
import { self } from '../../../../helpers/identity.js'
import { namespacesMissing } from '../../../../helpers/modes.js'
import { makeTestTmpDir } from '../../../../helpers/paths.js'
import { describeWhere } from '../../../../helpers/requirements.js'

const { binding } = loadNative()

let ws: string
let outside: string
beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'cordon-bindsrc-'))
  // Outside every write root, and visible inside the sandbox (not under the private /tmp).
  outside = makeTestTmpDir('bindsrc-outside-')
  mkdirSync(join(ws, '.git/hooks'), { recursive: true })
  writeFileSync(join(ws, '.git/marker'), 'REAL GIT\n')
  writeFileSync(join(outside, 'marker'), 'HOST SECRET\n')
})
afterEach(() => {
  rmSync(ws, { recursive: true, force: true })
  rmSync(outside, { recursive: true, force: true })
})

/** `.git` becomes a symlink to the outside directory (the real one moved aside). */
function swapGit(): void {
  renameSync(join(ws, '.git'), join(ws, '.git-real'))
  symlinkSync(outside, join(ws, '.git'))
}

/** Run `fn` once, just before the first call of the addon's `name`. */
function before(name: 'openNoFollow' | 'zygoteCall', fn: () => void): () => void {
  const b = binding as unknown as Record<string, (...a: unknown[]) => unknown>
  const original = b[name]!
  let done = false
  b[name] = (...args: unknown[]) => {
    if (!done) (done = true), fn()
    return original.apply(binding, args)
  }
  return () => void (b[name] = original)
}

describeWhere(namespacesMissing(self()), 'namespace-mode bind sources', () => {
  it('are passed by descriptor: .git is opened by the addon for the launch, and an untouched run sees the real .git', async () => {
    const sb = createSandbox({ cwd: ws, mode: 'namespaces', compat: 'hard' })
    const b = binding as unknown as Record<string, (...a: unknown[]) => unknown>
    const original = b.openNoFollow!
    const opened: unknown[] = []
    b.openNoFollow = (...args: unknown[]) => (opened.push(args[0]), original.apply(binding, args))
    try {
      const r = await sb.run(['cat', '.git/marker'])
      expect(r.stdout).toBe('REAL GIT\n')
      expect(opened).toContain(join(ws, '.git'))
    } finally {
      b.openNoFollow = original
      sb.close()
    }
  })

  it('swapped for a symlink after planning, before the launch opens it: the launch refuses (ELOOP), nothing is mounted', async () => {
    const sb = createSandbox({ cwd: ws, mode: 'namespaces', compat: 'hard' })
    const restore = before('openNoFollow', swapGit)
    try {
      const err = await sb.run(['cat', '.git/marker']).catch((e: unknown) => e)
      expect(err).toBeInstanceOf(SetupError)
      expect(err).toMatchObject({ step: 'launch', errnoCode: 'ELOOP' })
      expect((err as Error).message).toContain(`${join(ws, '.git')} changed after the launch was planned`)
    } finally {
      restore()
      sb.close()
    }
    expect(readdirSync(outside)).toEqual(['marker'])
  })

  it('a write root inside another sandbox\'s workspace swapped for a symlink after planning: refused too', async () => {
    // A sandbox on ws could rename ws/inner and plant ws/inner -> outside while a sandbox on ws/inner launches.
    const inner = join(ws, 'inner')
    mkdirSync(inner)
    const sb = createSandbox({ cwd: inner, mode: 'namespaces', compat: 'hard' })
    const restore = before('openNoFollow', () => {
      renameSync(inner, join(ws, 'inner-real'))
      symlinkSync(outside, inner)
    })
    try {
      const err = await sb.run(['sh', '-c', 'echo pwned > marker']).catch((e: unknown) => e)
      expect(err).toMatchObject({ step: 'launch', errnoCode: 'ELOOP' })
    } finally {
      restore()
      sb.close()
    }
    expect(readdirSync(outside)).toEqual(['marker'])
    expect(readFileSync(join(outside, 'marker'), 'utf8')).toBe('HOST SECRET\n')
  })
})
