/**
 * Placeholders are shared by concurrent launches through leases and removed
 * only by rmdir, which fails while another lease remains — so finishing one
 * launch never detaches the mask of another that still runs.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { PolicyError } from '../../../../../src/errors.js'
import { acquirePlaceholder, holdsPlaceholder, isPlaceholder, releaseIdlePlaceholders, releasePlaceholder } from '../../../../../src/platform/linux/namespaces/bwrap-placeholders.js'
import { repoRoot } from '../../../../helpers/paths.js'

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

  it('a lease is an empty directory: git, which tracks files only, never lists or stages a placeholder', () => {
    const p = join(w, '.codex')
    acquirePlaceholder(p)
    const [lease] = readdirSync(p)
    expect(statSync(join(p, lease!)).isDirectory()).toBe(true)
    expect(readdirSync(join(p, lease!))).toEqual([])
    releasePlaceholder(p)
    releaseIdlePlaceholders()
    expect(existsSync(p)).toBe(false)
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

  it('sweeps the leases of dead processes (same pid namespace), directories and the files of earlier versions', () => {
    const p = join(w, '.codex')
    acquirePlaceholder(p)
    mkdirSync(join(p, `.cordon-lease-${pidns(p)}-2147483646-abcdef`)) // no such pid
    writeFileSync(join(p, `.cordon-lease-${pidns(p)}-2147483645-abcdef`), '') // an earlier version's file lease
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

  it('processes taking and dropping one placeholder at once: every take succeeds and a held lease is never gone', async () => {
    // Races a take (mkdir, then the lease) against another process's rmdir of
    // the then-empty directory: the take retries instead of failing.
    const p = join(w, '.zshrc')
    const mod = pathToFileURL(join(repoRoot, 'dist/platform/linux/namespaces/bwrap-placeholders.js')).href
    const script = `
      const P = await import(${JSON.stringify(mod)}); const { readdirSync } = await import('node:fs')
      let failed = 0, lost = 0
      for (let i = 0; i < 300; i++) {
        try {
          P.acquirePlaceholder(${JSON.stringify(p)})
          if (!readdirSync(${JSON.stringify(p)}).some((n) => n.includes('-' + process.pid + '-'))) lost++
          P.releasePlaceholder(${JSON.stringify(p)}); P.releaseIdlePlaceholders()
        } catch (e) { failed++; console.error(e.message) }
      }
      console.log(JSON.stringify({ failed, lost }))`
    const one = () =>
      new Promise<string>((resolve) => {
        const c = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
        let out = ''
        c.stdout.on('data', (d) => (out += d))
        c.on('close', () => resolve(out.trim()))
      })
    const results = await Promise.all([one(), one(), one(), one()])
    expect(results.map((r) => JSON.parse(r))).toEqual(Array(4).fill({ failed: 0, lost: 0 }))
    expect(existsSync(p)).toBe(false)
  }, 60_000)
})
