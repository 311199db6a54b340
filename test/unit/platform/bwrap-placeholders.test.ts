/**
 * Placeholders are shared by concurrent launches through leases and removed
 * only by rmdir, which fails while another lease remains — so finishing one
 * launch never detaches the mask of another that still runs.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { PolicyError } from '../../../src/errors.js'
import { acquirePlaceholder, holdsPlaceholder, isPlaceholder, releaseIdlePlaceholders, releasePlaceholder } from '../../../src/platform/linux/bwrap-placeholders.js'

let w: string
beforeEach(() => {
  w = mkdtempSync(join(tmpdir(), 'cordon-test-ph-'))
})
afterEach(() => {
  releaseIdlePlaceholders()
  rmSync(w, { recursive: true, force: true })
})

/** The pid-namespace id in this process's lease names. */
const pidns = (dir: string) => /^\.cordon-lease-(\d+)-/.exec(readdirSync(dir)[0]!)![1]

describe('placeholders', () => {
  it('are created on demand, shared by launches, and removed once idle', () => {
    const p = join(w, '.bashrc')
    acquirePlaceholder(p)
    acquirePlaceholder(p)
    expect(isPlaceholder(p)).toBe(true)
    expect(holdsPlaceholder(p)).toBe(true)
    releasePlaceholder(p)
    releaseIdlePlaceholders()
    expect(existsSync(p)).toBe(true) // one launch still uses it
    releasePlaceholder(p)
    releaseIdlePlaceholders()
    expect(existsSync(p)).toBe(false)
    expect(holdsPlaceholder(p)).toBe(false)
  })

  it("another live process's lease keeps the placeholder (rmdir is the atomic check)", () => {
    const p = join(w, '.profile')
    acquirePlaceholder(p)
    const other = `.cordon-lease-${pidns(p)}-${process.ppid}-abcdef`
    writeFileSync(join(p, other), '')
    releasePlaceholder(p)
    releaseIdlePlaceholders()
    expect(readdirSync(p)).toEqual([other])
  })

  it('sweeps the leases of dead processes (same pid namespace)', () => {
    const p = join(w, '.codex')
    acquirePlaceholder(p)
    writeFileSync(join(p, `.cordon-lease-${pidns(p)}-2147483646-abcdef`), '') // no such pid
    releasePlaceholder(p)
    releaseIdlePlaceholders()
    expect(existsSync(p)).toBe(false)
  })

  it('keeps leases from another pid namespace (their owners cannot be checked from here)', () => {
    const p = join(w, '.cordon')
    acquirePlaceholder(p)
    writeFileSync(join(p, '.cordon-lease-1-2147483646-abcdef'), '')
    releasePlaceholder(p)
    releaseIdlePlaceholders()
    expect(readdirSync(p)).toEqual(['.cordon-lease-1-2147483646-abcdef'])
  })

  it('a directory with anything but leases in it is real data, not a placeholder', () => {
    mkdirSync(join(w, 'd'))
    writeFileSync(join(w, 'd/file'), '')
    expect(isPlaceholder(join(w, 'd'))).toBe(false)
    mkdirSync(join(w, 'empty'))
    expect(isPlaceholder(join(w, 'empty'))).toBe(false)
  })

  it('refuses to create one through a symlink', () => {
    symlinkSync('/etc', join(w, 'link'))
    expect(() => acquirePlaceholder(join(w, 'link'))).toThrow(PolicyError)
    expect(() => acquirePlaceholder(join(w, 'link', 'below'))).toThrow(PolicyError)
  })
})
