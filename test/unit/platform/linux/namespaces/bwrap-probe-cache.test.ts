/**
 * The persistent bwrap probe cache: a hit only for the same boot, uid,
 * namespaces, sysctls and bwrap binary; a miss for anything unreadable,
 * malformed or foreign; a refusal of directories that are not the caller's
 * own 0700 directory. Boot id, sysctls and namespaces come from a fake /proc.
 */
import { appendFileSync, chmodSync, copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { bwrapProbeCache, defaultProbeCacheDir, probeCacheFileName, type CachedProbe, type ProbeCacheOptions } from '../../../../../src/platform/linux/namespaces/bwrap-probe-cache.js'
import { bwrapWarnings, infoFromFacts, probeFacts, probeNamespacesPersistent, type BwrapInfo } from '../../../../../src/platform/linux/namespaces/bwrap-probe.js'
import type { NativeProbe } from '../../../../../src/native/binding.js'
import { self } from '../../../../helpers/identity.js'
import { namespacesMissing } from '../../../../helpers/modes.js'
import { itWhere } from '../../../../helpers/requirements.js'

const uid = process.getuid!()
const facts: CachedProbe = { version: '0.11.0', features: { disableUserns: true, cgroupTry: true, bindFd: true }, extraWarnings: [] }

let base: string
let proc: string
let dir: string
let bwrap: string
let loc: { path: string; realPath: string }
let opts: ProbeCacheOptions

function fakeProc(root: string): void {
  mkdirSync(join(root, 'sys/kernel/random'), { recursive: true })
  mkdirSync(join(root, 'sys/user'), { recursive: true })
  mkdirSync(join(root, 'self/ns'), { recursive: true })
  writeFileSync(join(root, 'sys/kernel/random/boot_id'), 'b9f0c3a4-0000-4000-8000-000000000001\n')
  writeFileSync(join(root, 'sys/user/max_user_namespaces'), '15000\n')
  symlinkSync('user:[4026531837]', join(root, 'self/ns/user'))
  symlinkSync('mnt:[4026531841]', join(root, 'self/ns/mnt'))
  writeFileSync(join(root, 'self/status'), 'Name:\tnode\nNoNewPrivs:\t0\nSeccomp:\t0\nSeccomp_filters:\t0\n')
}

const entry = () => bwrapProbeCache(loc, opts)!
const stored = () => entry().read()

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'cordon-probe-cache-test-'))
  proc = join(base, 'proc')
  fakeProc(proc)
  dir = join(base, 'cache')
  bwrap = join(base, 'bwrap')
  writeFileSync(bwrap, '#!/bin/sh\nexit 0\n', { mode: 0o755 })
  loc = { path: bwrap, realPath: bwrap }
  opts = { dir, procRoot: proc }
})
afterEach(() => rmSync(base, { recursive: true, force: true }))

describe('hit', () => {
  it('returns what was stored, for the same key', () => {
    expect(stored()).toBeNull()
    expect(entry().write(facts)).toBe(true)
    expect(stored()).toEqual(facts)
  })

  it('creates the directory 0700 and the file 0600, atomically (no temp file left)', () => {
    entry().write(facts)
    expect(lstatSync(dir).mode & 0o7777).toBe(0o700)
    expect(readdirSync(dir)).toEqual([probeCacheFileName(bwrap)])
    expect(statSync(join(dir, probeCacheFileName(bwrap))).mode & 0o777).toBe(0o600)
  })

  it('keeps extra warnings, checked', () => {
    const withWarning = { ...facts, extraWarnings: [{ detail: '--disable-userns failed here', fix: 'a newer bwrap' }] }
    entry().write(withWarning)
    expect(stored()).toEqual(withWarning)
  })

  it('names the file after the bwrap path; the default directory is per user', () => {
    expect(probeCacheFileName('/usr/bin/bwrap')).toBe('bwrap-probe-usr-bin-bwrap.json')
    expect(defaultProbeCacheDir(1000, { XDG_RUNTIME_DIR: '/run/user/1000' })).toBe('/run/user/1000/cordon')
    expect(defaultProbeCacheDir(1000, {})).toBe('/tmp/cordon-cache-1000')
    expect(defaultProbeCacheDir(1000, { XDG_RUNTIME_DIR: 'relative' })).toBe('/tmp/cordon-cache-1000')
  })
})

describe('miss when any part of the key changes', () => {
  const changes: [string, () => void][] = [
    ['the boot id (a reboot)', () => writeFileSync(join(proc, 'sys/kernel/random/boot_id'), 'b9f0c3a4-0000-4000-8000-000000000002\n')],
    ['user.max_user_namespaces', () => writeFileSync(join(proc, 'sys/user/max_user_namespaces'), '0\n')],
    ['kernel.apparmor_restrict_unprivileged_userns appearing', () => writeFileSync(join(proc, 'sys/kernel/apparmor_restrict_unprivileged_userns'), '1\n')],
    ['kernel.unprivileged_userns_clone appearing', () => writeFileSync(join(proc, 'sys/kernel/unprivileged_userns_clone'), '0\n')],
    ['the user namespace', () => (unlinkSync(join(proc, 'self/ns/user')), symlinkSync('user:[4026532000]', join(proc, 'self/ns/user')))],
    ['the caller running under a seccomp filter (a parent sandbox that may refuse new namespaces)', () => writeFileSync(join(proc, 'self/status'), 'Name:\tnode\nNoNewPrivs:\t1\nSeccomp:\t2\nSeccomp_filters:\t1\n')],
    ['the mount namespace', () => (unlinkSync(join(proc, 'self/ns/mnt')), symlinkSync('mnt:[4026532001]', join(proc, 'self/ns/mnt')))],
    ['the bwrap mtime', () => utimesSync(bwrap, new Date(2001, 1, 1), new Date(2001, 1, 1))],
    ['the bwrap size', () => appendFileSync(bwrap, '# longer\n')],
    ['the bwrap mode (a setuid bit)', () => chmodSync(bwrap, 0o4755)],
    ['the bwrap inode (a new package)', () => (copyFileSync(bwrap, `${bwrap}.new`), renameSync(`${bwrap}.new`, bwrap))],
    ['the real path bwrap resolves to', () => (copyFileSync(bwrap, join(base, 'bwrap-real')), (loc = { ...loc, realPath: join(base, 'bwrap-real') }))],
  ]
  for (const [what, change] of changes) {
    it(what, () => {
      entry().write(facts)
      expect(stored()).toEqual(facts)
      change()
      expect(stored()).toBeNull()
      // …and the next successful probe stores the new key.
      expect(entry().write(facts)).toBe(true)
      expect(stored()).toEqual(facts)
    })
  }

  it('the uid (the directory is then not the caller’s either)', () => {
    entry().write(facts)
    opts = { ...opts, uid: uid + 1 }
    expect(stored()).toBeNull()
  })

  it('nothing is cached without a boot id', () => {
    rmSync(join(proc, 'sys/kernel/random/boot_id'))
    expect(bwrapProbeCache(loc, opts)).toBeNull()
  })

  it('nothing is cached for a bwrap that is gone', () => {
    rmSync(bwrap)
    expect(bwrapProbeCache(loc, opts)).toBeNull()
  })
})

describe('refused directories (read misses, write stores nothing)', () => {
  it('another owner', () => {
    mkdirSync(dir, { mode: 0o700 })
    opts = { ...opts, uid: uid + 1 }
    expect(entry().write(facts)).toBe(false)
    expect(stored()).toBeNull()
  })

  it('a mode other than 0700 (and it is not "fixed")', () => {
    entry().write(facts)
    chmodSync(dir, 0o755)
    expect(stored()).toBeNull()
    expect(entry().write(facts)).toBe(false)
    expect(lstatSync(dir).mode & 0o7777).toBe(0o755)
  })

  it('a symlink, even to a good directory', () => {
    const real = join(base, 'real-cache')
    mkdirSync(real, { mode: 0o700 })
    chmodSync(real, 0o700)
    bwrapProbeCache(loc, { ...opts, dir: real })!.write(facts)
    symlinkSync(real, dir)
    expect(stored()).toBeNull()
    expect(entry().write(facts)).toBe(false)
  })

  it('a file where the directory should be', () => {
    writeFileSync(dir, '')
    expect(entry().write(facts)).toBe(false)
    expect(stored()).toBeNull()
  })
})

describe('unusable files are misses', () => {
  const file = () => join(dir, probeCacheFileName(bwrap))
  const rewrite = (mutate: (entry: { key: unknown; facts: Record<string, unknown> }) => void) => {
    const e = JSON.parse(readFileSync(file(), 'utf8'))
    mutate(e)
    writeFileSync(file(), JSON.stringify(e), { mode: 0o600 })
  }
  beforeEach(() => {
    entry().write(facts)
  })

  it('malformed JSON, then repaired by the next write', () => {
    writeFileSync(file(), '{"key": ', { mode: 0o600 })
    expect(stored()).toBeNull()
    entry().write(facts)
    expect(stored()).toEqual(facts)
  })

  it('facts of the wrong shape', () => {
    for (const bad of [
      (e: { facts: Record<string, unknown> }) => (e.facts.version = '0.11.0; rm -rf /'),
      (e: { facts: Record<string, unknown> }) => (e.facts.features = { disableUserns: 'yes', cgroupTry: true, bindFd: true }),
      (e: { facts: Record<string, unknown> }) => (e.facts.features = { disableUserns: true, cgroupTry: true, bindFd: true, path: '/tmp/evil-bwrap' }),
      (e: { facts: Record<string, unknown> }) => (e.facts.path = '/tmp/evil-bwrap'),
      (e: { facts: Record<string, unknown> }) => (e.facts.extraWarnings = [{ detail: 1, fix: 'x' }]),
      (e: { facts: Record<string, unknown> }) => delete e.facts.features,
    ]) {
      entry().write(facts)
      rewrite(bad)
      expect(stored()).toBeNull()
    }
  })

  it('a key of the wrong shape', () => {
    rewrite((e) => (e.key = { ...(e.key as object), extra: 1 }))
    expect(stored()).toBeNull()
  })

  it('a file others can read or write', () => {
    chmodSync(file(), 0o644)
    expect(stored()).toBeNull()
  })

  it('a file of another owner', () => {
    expect(bwrapProbeCache(loc, { ...opts, uid: uid + 1 })!.read()).toBeNull()
  })

  it('a symlink in place of the file', () => {
    const elsewhere = join(base, 'elsewhere.json')
    copyFileSync(file(), elsewhere)
    chmodSync(elsewhere, 0o600)
    unlinkSync(file())
    symlinkSync(elsewhere, file())
    expect(stored()).toBeNull()
  })

  it('remove() forgets the entry', () => {
    entry().remove()
    expect(existsSync(file())).toBe(false)
    expect(stored()).toBeNull()
  })
})

describe('what a stored answer can and cannot decide', () => {
  const info: BwrapInfo = {
    path: '/usr/bin/bwrap',
    realPath: '/usr/bin/bwrap',
    version: '0.8.0',
    setuid: false,
    features: { disableUserns: false, cgroupTry: true, bindFd: true },
    warnings: [],
  }

  it('stores the facts only; version-derived warnings are recomputed, others kept', () => {
    const retry = { detail: '--disable-userns failed here (x); nested user namespaces are blocked by the seccomp filter only', fix: 'y' }
    const f = probeFacts({ ...info, warnings: [...bwrapWarnings('0.8.0', false), retry] })
    expect(Object.keys(f).sort()).toEqual(['extraWarnings', 'features', 'version'])
    expect(f.extraWarnings).toEqual([retry])
    const back = infoFromFacts(loc, f)!
    expect(back.warnings.map((w) => w.detail).join('\n')).toContain('CVE-2026-87766')
    expect(back.warnings).toContainEqual(retry)
  })

  it('path, real path and the setuid bit come from the live binary', () => {
    chmodSync(bwrap, 0o4755)
    const back = infoFromFacts(loc, { ...facts })!
    expect(back).toMatchObject({ path: bwrap, realPath: bwrap, setuid: true, version: '0.11.0' })
    expect(back.warnings.map((w) => w.detail).join('\n')).toContain('setuid')
    rmSync(bwrap)
    expect(infoFromFacts(loc, facts)).toBeNull()
  })
})

describe('probeNamespacesPersistent', () => {
  const never = (): NativeProbe => {
    throw new Error('the host probe is only asked after a failed trial')
  }

  it('an explicit bwrap outside the well-known locations is never stored', () => {
    const fake = join(base, 'bin', 'bwrap')
    mkdirSync(join(base, 'bin'))
    copyFileSync(bwrap, fake)
    chmodSync(fake, 0o755)
    // The fake is a plain script: --version/--help yield nothing useful, so the probe fails; nothing is written either way.
    probeNamespacesPersistent(fake, { cache: opts }, () => ({}) as NativeProbe)
    expect(existsSync(dir)).toBe(false)
  })

  // Only a probe that succeeds is stored: this needs a bwrap that works here.
  itWhere(namespacesMissing(self()), 'a well-known bwrap: probed once, then answered from the cache with the live path', () => {
    const cache = { ...opts, procRoot: '/proc' }
    const first = probeNamespacesPersistent(undefined, { cache }, () => ({}) as NativeProbe)
    if (!first.ok) throw new Error(`the bwrap probe failed although namespace mode works here: ${first.reason}`)
    const file = join(dir, probeCacheFileName(first.bwrap.path))
    expect(existsSync(file)).toBe(true)
    // Doctor a stored fact: the next answer shows it, so it came from the cache (no trial run)…
    const e = JSON.parse(readFileSync(file, 'utf8'))
    e.facts.features.cgroupTry = !first.bwrap.features.cgroupTry
    writeFileSync(file, JSON.stringify(e), { mode: 0o600 })
    const second = probeNamespacesPersistent(undefined, { cache }, never)
    expect(second.ok && second.bwrap.features.cgroupTry).toBe(!first.bwrap.features.cgroupTry)
    // …while the path is still the located one, and refresh runs the real probe again.
    expect(second.ok && second.bwrap.path).toBe(first.bwrap.path)
    const fresh = probeNamespacesPersistent(undefined, { cache, refresh: true }, () => ({}) as NativeProbe)
    expect(fresh.ok && fresh.bwrap.features).toEqual(first.bwrap.features)
  })
})
