/**
 * The generated Seatbelt profiles: a golden file per built-in profile and
 * per edge case (test/unit/platform/darwin/golden/), every one passing the
 * SBPL checker, and the decisions that matter read back from the text the
 * way Seatbelt evaluates it (the last matching rule wins): a denied file
 * inside a write root stays unreadable, a protected path that does not
 * exist cannot be created, its ancestors cannot be renamed.
 *
 * Verified here by these unit tests on Linux only; not yet compiled by
 * macOS's sandbox compiler (docs/macos.md).
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { PolicyError } from '../../../../src/errors.js'
import { loadBasePolicy } from '../../../../src/platform/darwin/base-policy.js'
import { MAX_SBPL_STRING } from '../../../../src/platform/darwin/sbpl-string.js'
import { seatbeltProfile, type SeatbeltInput, type SeatbeltNetwork } from '../../../../src/platform/darwin/sbpl.js'
import { expandPath, hasGlob } from '../../../../src/profile/paths.js'
import { BUILTIN_PROFILES, builtinSecretDenies, loadProfile } from '../../../../src/profile/profiles.js'
import { checkProfile, decide, parseSbpl } from '../../../helpers/sbpl-check.js'

const CTX = { cwd: '/Users/dev/repo', tmpdir: '/var/folders/zz/T/cordon-1', home: '/Users/dev' }
const golden = (name: string) => join(import.meta.dirname, 'golden', `${name}.sb`)
const TAG = 'cordon-0123456789abcdef'

/** A built-in profile's network is a level; an allowlist (an object) is never built in. */
function builtinNetwork(n: ReturnType<typeof loadProfile>['network']): 'off' | 'inet' | 'on' {
  if (typeof n !== 'string') throw new Error('a built-in profile with a network allowlist')
  return n
}

/** A built-in profile's policy at fixed paths (expanded, not canonicalised: no such paths exist here). */
function builtin(name: string): SeatbeltInput['policy'] & { network: 'off' | 'inet' | 'on' } {
  const p = loadProfile(name)
  const fs = p.filesystem
  const denies = [...(fs.denySecrets ? builtinSecretDenies() : []), ...fs.denyRead].map((r) => expandPath(r, CTX))
  return {
    profileName: name,
    readAll: fs.read === 'all',
    readRoots: fs.read === 'all' ? ['/'] : fs.read.map((r) => expandPath(r, CTX)),
    writeRoots: fs.write.map((w) => expandPath(w, CTX)),
    denyRead: denies.filter((d) => !hasGlob(d)),
    denyGlobs: denies.filter(hasGlob),
    protectedPaths: fs.protected.map((r) => expandPath(r, CTX)),
    network: builtinNetwork(p.network),
  }
}

function profileOf(policy: SeatbeltInput['policy'], network: SeatbeltNetwork = { kind: 'off' }): string {
  const text = seatbeltProfile({ policy, network, tag: TAG, base: loadBasePolicy() })
  checkProfile(text)
  return text
}

/** Each [operation, resolved path, verdict] as Seatbelt would decide it from the profile text. */
function expectDecisions(text: string, cases: [string, string, 'allow' | 'deny'][]): void {
  for (const [op, path, verdict] of cases) expect(decide(text, op, path), `${op} ${path}`).toBe(verdict)
}

const plain = (over: Partial<SeatbeltInput['policy']> = {}): SeatbeltInput['policy'] => ({
  profileName: 'custom', readAll: true, readRoots: ['/'], writeRoots: ['/Users/dev/repo'], denyRead: [], denyGlobs: [], protectedPaths: [], ...over,
})

describe('Seatbelt profile of each built-in profile', () => {
  for (const name of BUILTIN_PROFILES) {
    it(`${name}: golden, well-formed, tagged`, async () => {
      const { network, ...policy } = builtin(name)
      const text = profileOf(policy, { kind: network })
      expect(text.startsWith('(version 1)\n')).toBe(true)
      expect(text).toContain(`(deny default (with message "${TAG}"))`)
      await expect(text).toMatchFileSnapshot(golden(name))
    })
  }

  it('workspace-write: secrets unreadable, workspace writable, .git/hooks read-only, temp dir through /private', () => {
    const { network: _n, ...policy } = builtin('workspace-write')
    const t = profileOf(policy)
    expectDecisions(t, [
      ['file-read-data', '/Users/dev/.ssh/id_ed25519', 'deny'],
      ['file-read-data', '/Users/dev/notes.txt', 'allow'],
      ['file-write-create', '/Users/dev/repo/src/a.ts', 'allow'],
      ['file-write-create', '/Users/dev/other/a.ts', 'deny'],
      ['file-write-create', '/Users/dev/repo/.git/hooks/pre-commit', 'deny'],
      ['file-write-data', '/Users/dev/repo/.git/config', 'deny'],
      ['file-write-create', '/private/var/folders/zz/T/cordon-1/x', 'allow'],
      ['file-write-create', '/var/folders/zz/T/cordon-1/x', 'deny'], // no rule names the unresolved form
    ])
    expect(t).not.toMatch(/"\/var\//)
  })

  it('read-only: nothing writable but the temp dir; full-access: writes anywhere, secrets still denied', () => {
    const ro = profileOf(builtin('read-only'))
    expect(decide(ro, 'file-write-create', '/Users/dev/repo/a')).toBe('deny')
    const fa = builtin('full-access')
    const t = profileOf(fa, { kind: 'on' })
    expectDecisions(t, [
      ['file-write-create', '/Library/x', 'allow'],
      ['file-read-data', '/Users/dev/.aws/credentials', 'deny'],
    ])
    expect(t).toContain('(allow network*)')
  })
})

describe('Seatbelt profile edge cases', () => {
  it('spaces, quotes, backslashes and unicode in paths are escaped, not broken', async () => {
    const root = '/Users/dev/my "quoted" repo\\ünïcödé 日本'
    const t = profileOf(plain({ writeRoots: [root], protectedPaths: [`${root}/.git/hooks`] }))
    expect(t).toContain('(subpath "/Users/dev/my \\"quoted\\" repo\\\\ünïcödé 日本")')
    expectDecisions(t, [
      ['file-write-create', `${root}/x`, 'allow'],
      ['file-write-create', `${root}/.git/hooks/x`, 'deny'],
    ])
    await expect(t).toMatchFileSnapshot(golden('edge-quotes-unicode'))
  })

  it('/tmp, /var and /etc paths are written in their /private form only', () => {
    const t = profileOf(plain({ writeRoots: ['/tmp/cordon-x'], denyRead: ['/etc/master.passwd'], denyGlobs: ['/tmp/**/*.key'] }))
    expect(t).toContain('(subpath "/private/tmp/cordon-x")')
    expect(t).not.toMatch(/"\/tmp|"\^\/tmp|"\/etc/)
    expectDecisions(t, [
      ['file-write-create', '/private/tmp/cordon-x/a', 'allow'],
      ['file-read-data', '/private/etc/master.passwd', 'deny'],
      ['file-read-data', '/private/tmp/cordon-x/later/created.key', 'deny'],
    ])
  })

  it('thousands of paths become bounded regexes, each string within the compiler limit', async () => {
    const denyRead = Array.from({ length: 3000 }, (_, i) => `/Users/dev/repo/fixtures/case-${i}/.env`)
    const t = profileOf(plain({ denyRead }))
    const strings = [...t.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => Buffer.byteLength(m[1]!))
    expect(Math.max(...strings)).toBeLessThanOrEqual(MAX_SBPL_STRING)
    expect(t.match(/\(literal "/g)?.length ?? 0).toBeLessThan(40) // grouped, not 3000 literals
    expect(t.length).toBeLessThan(400_000)
    for (const i of [0, 1234, 2999]) expect(decide(t, 'file-read-data', `/Users/dev/repo/fixtures/case-${i}/.env`)).toBe('deny')
    expectDecisions(t, [
      ['file-read-data', '/Users/dev/repo/fixtures/case-3000/.env', 'allow'],
      ['file-read-data', '/Users/dev/repo/fixtures/case-12/.envrc', 'allow'],
      ['file-read-data', '/Users/dev/repo/fixtures/case-12/.env/inner', 'deny'],
    ])
  })

  it('a deny-read path inside a write root: unreadable, unwritable, and neither it nor its ancestors can be renamed', async () => {
    const t = profileOf(plain({ denyRead: ['/Users/dev/repo/config/.env'] }))
    expectDecisions(t, [
      ['file-read-data', '/Users/dev/repo/config/.env', 'deny'],
      ['file-write-data', '/Users/dev/repo/config/.env', 'deny'],
      ['file-write-unlink', '/Users/dev/repo/config/.env', 'deny'],
      ['file-write-unlink', '/Users/dev/repo/config', 'deny'],
      ['file-write-unlink', '/Users/dev/repo', 'deny'],
      ['file-write-unlink', '/Users/dev/repo/config/other', 'allow'],
    ])
    await expect(t).toMatchFileSnapshot(golden('edge-deny-inside-write-root'))
  })

  it('a missing protected path cannot be created (literal and subpath), its ancestors cannot be renamed', () => {
    const t = profileOf(plain({ protectedPaths: ['/Users/dev/repo/.git/hooks'] }))
    expect(t).toContain('(literal "/Users/dev/repo/.git/hooks")')
    expect(t).toContain('(subpath "/Users/dev/repo/.git/hooks")')
    expectDecisions(t, [
      ['file-write-create', '/Users/dev/repo/.git/hooks', 'deny'],
      ['file-write-create', '/Users/dev/repo/.git/hooks/post-checkout', 'deny'],
      ['file-write-unlink', '/Users/dev/repo/.git', 'deny'],
      ['file-write-create', '/Users/dev/repo/.git/objects/ab', 'allow'],
    ])
  })

  it('read roots: only they, the write roots and the system files the base policy names are readable and executable', async () => {
    const t = profileOf(plain({ readAll: false, readRoots: ['/Users/dev/repo', '/opt/homebrew'] }))
    expectDecisions(t, [
      ['file-read-data', '/opt/homebrew/bin/git', 'allow'],
      ['process-exec', '/opt/homebrew/bin/git', 'allow'],
      ['process-exec', '/bin/sh', 'allow'],
      ['file-read-data', '/usr/lib/dyld', 'allow'],
      ['file-read-data', '/Users/dev/Documents/a', 'deny'],
      ['process-exec', '/Users/dev/Downloads/tool', 'deny'],
    ])
    await expect(t).toMatchFileSnapshot(golden('edge-read-roots'))
  })

  it('network: off allows nothing, proxy only localhost:PORT, inet IP and name resolution, on everything', () => {
    const rules = (n: SeatbeltNetwork) => profileOf(plain(), n).split('\n').filter((l) => /network/.test(l) && !l.startsWith(';'))
    expect(rules({ kind: 'off' })).toEqual([])
    expect(rules({ kind: 'proxy', port: 8080 })).toEqual(['(allow network-outbound (remote ip "localhost:8080"))'])
    expect(rules({ kind: 'inet' })).toEqual(['(allow network-outbound (literal "/private/var/run/mDNSResponder"))', '(allow network-outbound (remote ip "*:*"))', '(allow network-inbound network-bind (local ip "*:*"))'])
    expect(rules({ kind: 'on' })).toEqual(['(allow network*)'])
  })

  it('every base rule appears under its reason comment', () => {
    const t = profileOf(plain())
    for (const r of loadBasePolicy().filter((b) => b.when === 'always')) expect(t).toContain(`; ${r.reason}\n${r.sbpl}\n`)
  })

  it('a path no SBPL string can hold is a PolicyError, not a broken profile', () => {
    expect(() => profileOf(plain({ writeRoots: [`/Users/${'x'.repeat(1100)}`] }))).toThrow(PolicyError)
    expect(() => profileOf(plain({ writeRoots: ['/Users/dev/a\nb'] }))).toThrow(/control character/)
  })

  it('the profile parses to rules only (no stray atoms at the top)', () => {
    expect(parseSbpl(profileOf(plain())).every((f) => f.kind === 'list')).toBe(true)
  })
})
