/** Path expansion and canonicalisation: tokens, ~, planted symlinks, missing tails. */
import { lstatSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { PolicyError } from '../../../src/errors.js'
import { canonicalize, canonicalWriteRoots, dedupeRoots, expandPath, hasGlob, isWithin, revalidate, type PathKind } from '../../../src/profile/paths.js'

const base = realpathSync(mkdtempSync(join(tmpdir(), 'cordon-paths-')))
afterAll(() => rmSync(base, { recursive: true, force: true }))
const ctx = { cwd: '/work/project', tmpdir: '/tmp/cordon-x', home: '/home/user' }

describe('expandPath', () => {
  it.each([
    ['${cwd}/src', '/work/project/src'],
    ['${tmpdir}', '/tmp/cordon-x'],
    ['${home}/.ssh', '/home/user/.ssh'],
    ['~', '/home/user'],
    ['~/.aws/credentials', '/home/user/.aws/credentials'],
    ['build/out', '/work/project/build/out'],
    ['/etc/../var//log/', '/var/log'],
  ])('%s → %s', (raw, want) => {
    expect(expandPath(raw, ctx)).toBe(want)
  })

  it('variables are substituted before ~ is expanded, and a home with ${…} in it is checked like any path', () => {
    expect(expandPath('~/${cwd}', ctx)).toBe('/home/user/work/project')
    expect(() => expandPath('~/x', { ...ctx, home: '/home/${user}' })).toThrow(/unknown variable \$\{user\}/)
  })

  it('~user is not expanded (only ~ and ~/)', () => {
    expect(expandPath('~root/x', ctx)).toBe('/work/project/~root/x')
  })

  it('an unknown ${x} → PolicyError naming the variable and the raw path', () => {
    expect(() => expandPath('${workspace}/x', ctx)).toThrow(PolicyError)
    try {
      expandPath('${workspace}/x', ctx)
    } catch (e) {
      expect((e as PolicyError).where).toBe('${workspace}/x')
      expect((e as PolicyError).message).toMatch(/\$\{workspace\}/)
    }
  })
})

describe('canonicalize', () => {
  const write = join(base, 'write')
  const outside = join(base, 'outside')
  mkdirSync(join(write, 'sub'), { recursive: true })
  mkdirSync(join(outside, 'real', 'deep'), { recursive: true })
  symlinkSync(join(outside, 'real'), join(outside, 'link'))
  symlinkSync(join(outside, 'real'), join(write, 'planted'))

  it('follows a symlink outside every write root', () => {
    expect(canonicalize(join(outside, 'link', 'deep'), [write], 'deny-read path')).toBe(join(outside, 'real', 'deep'))
  })

  it('refuses a symlink planted inside a write root (PolicyError naming the link and the root)', () => {
    try {
      canonicalize(join(write, 'planted', 'deep'), [write], 'protected path')
      expect.unreachable()
    } catch (e) {
      expect(e).toBeInstanceOf(PolicyError)
      expect((e as PolicyError).where).toBe('protected path')
      expect((e as PolicyError).message).toContain(join(write, 'planted'))
      expect((e as PolicyError).message).toContain(`writable root ${write}`)
    }
  })

  it('keeps a missing tail as written', () => {
    expect(canonicalize(join(outside, 'link', 'not', 'yet'), [write], 'x')).toBe(join(outside, 'real', 'not', 'yet'))
    expect(canonicalize(join(write, 'sub', 'missing', 'file'), [write], 'x')).toBe(join(write, 'sub', 'missing', 'file'))
  })

  it('. and .. components (not normalised by the caller) resolve as path.join resolves them', () => {
    const raw = `${outside}/./link/../link/deep/./x/../y`
    expect(canonicalize(raw, [write], 'x')).toBe(join(outside, 'real', 'deep', 'y'))
    expect(canonicalize(`${write}/sub/missing/../other/./f`, [write], 'x')).toBe(join(write, 'sub', 'other', 'f'))
    expect(canonicalize('/../..', [], 'x')).toBe('/')
  })

  it('the per-sandbox cache remembers missing paths outside write roots, never inside one', () => {
    const cache = new Map<string, string>()
    const later = join(outside, 'later')
    expect(canonicalize(join(later, 'x'), [write], 'x', cache)).toBe(join(later, 'x'))
    expect(cache.get(later)).toBe('') // remembered as missing
    const inside = join(write, 'later')
    expect(canonicalize(join(inside, 'x'), [write], 'x', cache)).toBe(join(inside, 'x'))
    expect(cache.has(inside)).toBe(false)
    // Sandboxed code plants a symlink where the missing path was: still refused on the next launch.
    symlinkSync(join(outside, 'real'), inside)
    expect(() => canonicalize(join(inside, 'x'), [write], 'x', cache)).toThrow(PolicyError)
  })

  it('a write root that is itself a symlink is followed (only links strictly inside are refused)', () => {
    const linkedRoot = join(base, 'linked-root')
    symlinkSync(write, linkedRoot)
    expect(canonicalWriteRoots([linkedRoot])).toEqual([write])
  })

  it('a write root reached through a symlink planted in another write root → PolicyError', () => {
    expect(() => canonicalWriteRoots([write, join(write, 'planted')])).toThrow(PolicyError)
  })

  it('a missing write root → PolicyError at filesystem.write', () => {
    try {
      canonicalWriteRoots([join(base, 'nope')])
      expect.unreachable()
    } catch (e) {
      expect((e as PolicyError).where).toBe('filesystem.write')
    }
  })
})

describe('revalidate: a kept sandbox looks at its cached paths again', () => {
  const r = join(base, 'reval')
  /** Node's lstat as lstatOrNull reads it (the Linux backend's batch answers the same: test/native/host-facts.test.ts). */
  const nodeKinds = (paths: readonly string[]): PathKind[] =>
    paths.map((p) => {
      try {
        return lstatSync(p).isSymbolicLink() ? 'symlink' : 'present'
      } catch (e) {
        return ['ENOENT', 'ENOTDIR', 'EACCES'].includes((e as NodeJS.ErrnoException).code ?? '') ? 'missing' : 'error'
      }
    })
  mkdirSync(join(r, 'real', 'deep'), { recursive: true })
  mkdirSync(join(r, 'plain', 'sub'), { recursive: true })
  mkdirSync(join(r, 'other', 'deep'), { recursive: true })
  mkdirSync(join(r, 'gone'))
  symlinkSync(join(r, 'real'), join(r, 'link'))
  const paths = [join(r, 'plain', 'sub', 'x'), join(r, 'link', 'deep'), join(r, 'later', 'y'), join(r, 'gone', 'z')]

  it('keeps what the filesystem still says, drops the rest: every path then canonicalizes as in a new sandbox', () => {
    const cache = new Map<string, string>()
    for (const p of paths) canonicalize(p, [], 'deny-read path', cache)
    expect(cache.get(join(r, 'later'))).toBe('') // missing, remembered
    // Between two hand-outs the host changes each kind of entry:
    symlinkSync(join(r, 'other'), join(r, 'later')) // a missing path appears, as a link
    rmSync(join(r, 'link'))
    symlinkSync(join(r, 'other'), join(r, 'link')) // a link is pointed elsewhere
    rmSync(join(r, 'gone'), { recursive: true })
    symlinkSync(join(r, 'other'), join(r, 'gone')) // a directory becomes a link
    revalidate(cache, nodeKinds)
    expect(cache.get(join(r, 'plain'))).toBe(join(r, 'plain')) // unchanged: kept
    expect(cache.get(join(r, 'plain', 'sub'))).toBe(join(r, 'plain', 'sub'))
    expect(cache.get(r)).toBe(r)
    for (const gone of ['later', 'link', 'gone']) expect(cache.has(join(r, gone))).toBe(false)
    expect(cache.has(join(r, 'link', 'deep'))).toBe(false) // below a link: never cached under the link's name
    for (const p of paths) expect(canonicalize(p, [], 'deny-read path', cache)).toBe(canonicalize(p, [], 'deny-read path'))
    expect(canonicalize(paths[1]!, [], 'x', cache)).toBe(join(r, 'other', 'deep'))
    expect(canonicalize(paths[2]!, [], 'x', cache)).toBe(join(r, 'other', 'y'))
    expect(canonicalize(paths[3]!, [], 'x', cache)).toBe(join(r, 'other', 'z'))
  })

  it('a link is looked at again even when unchanged; an `error` answer drops its entry; no batch empties the cache', () => {
    const cache = new Map<string, string>()
    canonicalize(join(r, 'plain', 'sub'), [], 'x', cache)
    canonicalize(join(r, 'link'), [], 'x', cache)
    revalidate(cache, (ps) => ps.map((p) => (p === join(r, 'plain') ? 'error' : nodeKinds([p])[0]!)))
    expect(cache.has(join(r, 'link'))).toBe(false)
    expect(cache.has(join(r, 'plain'))).toBe(false)
    expect(cache.get(join(r, 'plain', 'sub'))).toBe(join(r, 'plain', 'sub'))
    revalidate(cache, undefined)
    expect(cache.size).toBe(0)
  })
})

describe('helpers', () => {
  it('isWithin compares whole components', () => {
    expect(isWithin('/a/b', '/a')).toBe(true)
    expect(isWithin('/a', '/a')).toBe(true)
    expect(isWithin('/ab', '/a')).toBe(false)
    expect(isWithin('/anything', '/')).toBe(true)
    // A trailing separator on the root, and paths that are a prefix of the root.
    expect(isWithin('/a', '/a/')).toBe(true)
    expect(isWithin('/a/b', '/a/')).toBe(true)
    expect(isWithin('/ab', '/a/')).toBe(false)
    expect(isWithin('/', '/a')).toBe(false)
    expect(isWithin('relative', '/')).toBe(false)
  })

  it('dedupeRoots drops duplicates and nested roots', () => {
    expect(dedupeRoots(['/a/b', '/a', '/c', '/a'])).toEqual(['/a', '/c'])
  })

  it('hasGlob spots glob characters', () => {
    expect(hasGlob('/x/**/.env')).toBe(true)
    expect(hasGlob('/x/file?')).toBe(true)
    expect(hasGlob('/x/plain.txt')).toBe(false)
  })
})
