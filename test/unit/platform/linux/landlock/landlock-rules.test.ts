/**
 * Landlock allow rules from a resolved policy: a denied path inside a read
 * or write root is carved out by granting its siblings, recursively; the
 * directories on the way lose their own rule and are listed in `narrowed`.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { DEVICE_FILES, landlockRules } from '../../../../../src/platform/linux/landlock/landlock-rules.js'
import type { ResolvedPolicy } from '../../../../../src/profile/resolve.js'

const base = realpathSync(mkdtempSync(join(tmpdir(), 'cordon-llrules-')))
afterAll(() => rmSync(base, { recursive: true, force: true }))
for (const d of ['home/.ssh', 'home/docs', 'home/.config/gh', 'home/.config/other', 'work/src']) mkdirSync(join(base, d), { recursive: true })
writeFileSync(join(base, 'home/notes.txt'), 'x')
symlinkSync('/etc', join(base, 'home/etc-link'))

function policy(p: Partial<ResolvedPolicy>): ResolvedPolicy {
  return {
    profileName: 't', cwd: base, tmpdir: base, readAll: false, readRoots: [], writeRoots: [], denyRead: [], denyGlobs: [],
    denyGlobsTruncated: false, protectedPaths: [], network: 'off', env: {}, envDropped: [], limits: {}, unsandboxed: false, ...p,
  }
}
const paths = (rules: { path: string; access: string[] }[], access: string) => rules.filter((r) => r.access.includes(access)).map((r) => r.path).sort()
const home = join(base, 'home')

describe('landlockRules', () => {
  it('no denial: one rule per root, plus the device files', () => {
    const r = landlockRules(policy({ readRoots: [home], writeRoots: [join(base, 'work')] }))
    expect(paths(r.rules, 'read')).toEqual([home])
    expect(paths(r.rules, 'write')).toEqual([join(base, 'work')])
    expect(paths(r.rules, 'dev')).toEqual([...DEVICE_FILES].sort())
    expect(r.narrowed).toEqual([])
  })

  it('a denial inside a read root: the siblings are granted, the root is narrowed, symlinks get no rule', () => {
    const r = landlockRules(policy({ readRoots: [home], denyRead: [join(home, '.ssh')] }))
    expect(paths(r.rules, 'read')).toEqual(['.config', 'docs', 'notes.txt'].map((n) => join(home, n)).sort())
    expect(r.narrowed).toEqual([home])
  })

  it('a deeper denial narrows every ancestor on the way, and only those', () => {
    const r = landlockRules(policy({ readRoots: [base], denyRead: [join(home, '.config', 'gh')] }))
    expect(r.narrowed).toEqual([base, home, join(home, '.config')])
    const read = paths(r.rules, 'read')
    expect(read).toContain(join(home, '.config', 'other'))
    expect(read).toContain(join(base, 'work'))
    expect(read.some((p) => p.startsWith(join(home, '.config', 'gh')))).toBe(false)
  })

  it('a denial inside a write root carves the write rights the same way', () => {
    const r = landlockRules(policy({ writeRoots: [home], denyRead: [join(home, 'docs')] }))
    expect(paths(r.rules, 'write')).not.toContain(join(home, 'docs'))
    expect(paths(r.rules, 'write')).toContain(join(home, '.ssh'))
    expect(r.narrowed).toEqual([home])
  })

  it('a denied root gets no rule at all', () => {
    const r = landlockRules(policy({ readRoots: [home], denyRead: [home] }))
    expect(paths(r.rules, 'read')).toEqual([])
  })

  it('a denial that does not exist yet still narrows its parent (it cannot be created readable)', () => {
    const r = landlockRules(policy({ readRoots: [home], denyRead: [join(home, '.aws')] }))
    expect(r.narrowed).toEqual([home])
    expect(paths(r.rules, 'read')).not.toContain(join(home, '.aws'))
  })

  it('a device file below a denied path gets no dev rule', () => {
    const r = landlockRules(policy({ readRoots: [home], denyRead: ['/dev'] }))
    expect(paths(r.rules, 'dev')).toEqual([])
  })
})
