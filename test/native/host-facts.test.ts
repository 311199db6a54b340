/**
 * The addon's reads of the caller's own state (native/linux/host-facts.c)
 * and the Linux backend's HostFacts over them: each must answer exactly what
 * the Node read it stands for answers — process.env for environBlock,
 * fs.lstatSync as profile/paths.ts reads it for lstatKinds — since a kept
 * sandbox is reused, and a cached path kept, on their word.
 */
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadNative } from '../../src/native/load.js'
import { linuxHostFacts } from '../../src/platform/linux/host-facts.js'
import { itWhere, unless } from '../helpers/requirements.js'

const { binding } = loadNative()
const environBlock = binding.environBlock!
const lstatKinds = binding.lstatKinds!

/** The block's entries as process.env shows them (the first `=` ends the name). */
function parseBlock(block: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const entry of block.split('\0').slice(0, -1)) {
    const eq = entry.indexOf('=')
    out[entry.slice(0, eq)] = Buffer.from(entry.slice(eq + 1), 'latin1').toString('utf8')
  }
  return out
}

describe('environBlock', () => {
  it('holds exactly the variables process.env shows, each followed by a NUL', () => {
    const block = environBlock()
    expect(block.endsWith('\0')).toBe(true)
    expect(parseBlock(block)).toEqual({ ...process.env })
  })

  it('changes with every set, change and delete through process.env, and is the same string again once restored', () => {
    const before = environBlock()
    const name = 'CORDON_HOST_FACTS_TEST'
    const seen = new Set([before])
    try {
      process.env[name] = 'one'
      seen.add(environBlock())
      process.env[name] = 'two'
      seen.add(environBlock())
      process.env[name] = 'héllo ☃' // not Latin-1 text: its UTF-8 bytes, one char each
      const utf8 = environBlock()
      seen.add(utf8)
      expect(parseBlock(utf8)[name]).toBe('héllo ☃')
    } finally {
      delete process.env[name]
    }
    expect(seen.size).toBe(4)
    expect(environBlock()).toBe(before)
  })
})

describe('lstatKinds', () => {
  const w = mkdtempSync(join(tmpdir(), 'cordon-host-facts-'))
  afterAll(() => {
    chmodSync(join(w, 'closed'), 0o755)
    rmSync(w, { recursive: true, force: true })
  })
  mkdirSync(join(w, 'dir'))
  writeFileSync(join(w, 'file'), 'x')
  symlinkSync(join(w, 'dir'), join(w, 'link'))
  symlinkSync(join(w, 'nowhere'), join(w, 'dangling'))
  mkdirSync(join(w, 'closed/inner'), { recursive: true })
  chmodSync(join(w, 'closed'), 0o000)

  const kinds = (paths: string[]) => Array.from(lstatKinds(paths.map((p) => `${p}\0`).join('')))

  it('0 missing, 1 a link (dangling too: lstat does not follow), 2 anything else — one per path, in order', () => {
    expect(kinds([join(w, 'dir'), join(w, 'file'), join(w, 'link'), join(w, 'dangling'), join(w, 'missing'), '/', '/dev/null'])).toEqual([2, 2, 1, 1, 0, 2, 2])
  })

  it('ENOTDIR (a file on the way) is missing, as profile/paths.ts reads it', () => {
    expect(() => lstatSync(join(w, 'file', 'below'))).toThrow(/ENOTDIR/)
    expect(kinds([join(w, 'file', 'below')])).toEqual([0])
  })

  it('another errno (ENAMETOOLONG) is 3: the caller looks itself', () => {
    const long = join(w, 'x'.repeat(300))
    expect(() => lstatSync(long)).toThrow(/ENAMETOOLONG/)
    expect(kinds([long, join(w, 'dir')])).toEqual([3, 2])
  })

  itWhere(
    unless(process.getuid?.() !== 0, 'EACCES needs a caller that cannot search a directory, and root searches every one (the unprivileged pass of .ci/run runs this as cordon-probe)'),
    'EACCES (a directory the caller cannot search) is missing',
    () => {
      expect(() => lstatSync(join(w, 'closed', 'inner'))).toThrow(/EACCES/)
      expect(kinds([join(w, 'closed', 'inner')])).toEqual([0])
    },
  )

  it('an empty batch is an empty array; a trailing path without its NUL is not read; a non-string is a TypeError', () => {
    expect(Array.from(lstatKinds(''))).toEqual([])
    expect(Array.from(lstatKinds(`${w}\0${join(w, 'dir')}`))).toEqual([2])
    expect(() => (lstatKinds as unknown as (x: unknown) => unknown)([w])).toThrow(TypeError)
  })

  it("the backend's pathKinds names the kinds and refuses to batch a path holding a NUL", () => {
    const facts = linuxHostFacts()
    expect(facts.pathKinds([join(w, 'link'), join(w, 'missing'), join(w, 'file')])).toEqual(['symlink', 'missing', 'present'])
    // A NUL would split the batch: every answer is `error`, and the caller looks at each itself.
    expect(facts.pathKinds([join(w, 'file'), `${w}\0/etc`])).toEqual(['error', 'error'])
  })
})

describe("the backend's environment read", () => {
  it('keys on the environ block on the main thread (the test files run in forked processes), and its variables are process.env', () => {
    const read = linuxHostFacts().environment()!
    expect(read.key).toBe(environBlock())
    expect(read.variables()).toEqual({ ...process.env })
  })

  it('declines while process.env is an object of the program\'s (environ no longer follows it), and reads again once it is back', () => {
    const real = process.env
    process.env = { ...real, API_TOKEN: 'first' }
    try {
      expect(linuxHostFacts().environment()).toBeUndefined()
      expect(process.env.CORDON_ENVIRON_PROBE).toBeUndefined() // the look leaves nothing behind
    } finally {
      process.env = real
    }
    expect(linuxHostFacts().environment()?.key).toBe(environBlock())
    expect(environBlock()).not.toContain('CORDON_ENVIRON_PROBE')
  })
})
