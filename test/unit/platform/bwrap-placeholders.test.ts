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
import { acquirePlaceholder, isPlaceholder, releasePlaceholder } from '../../../src/platform/linux/bwrap-placeholders.js'

let w: string
beforeEach(() => {
  w = mkdtempSync(join(tmpdir(), 'cordon-test-ph-'))
})
afterEach(() => rmSync(w, { recursive: true, force: true }))

describe('placeholders', () => {
  it('are created on demand and removed when the last lease goes', () => {
    const p = join(w, '.bashrc')
    const a = acquirePlaceholder(p)
    const b = acquirePlaceholder(p)
    expect(isPlaceholder(p)).toBe(true)
    releasePlaceholder(a)
    expect(existsSync(p)).toBe(true) // b still holds it
    releasePlaceholder(b)
    expect(existsSync(p)).toBe(false)
  })

  it('sweeps the leases of dead processes (same pid namespace)', () => {
    const p = join(w, '.codex')
    const mine = acquirePlaceholder(p)
    const ns = /-(\d+)-\d+-[0-9a-f]+$/.exec(mine)![1]
    writeFileSync(join(p, `.cordon-lease-${ns}-2147483646-abcdef`), '') // no such pid
    releasePlaceholder(mine)
    expect(existsSync(p)).toBe(false)
  })

  it('keeps leases from another pid namespace (their owners cannot be checked from here)', () => {
    const p = join(w, '.cordon')
    const mine = acquirePlaceholder(p)
    writeFileSync(join(p, '.cordon-lease-1-2147483646-abcdef'), '')
    releasePlaceholder(mine)
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
