/**
 * The CLI's fast start: a CommonJS bundle loads with the V8 code cache the
 * build made for it, and without it (compiled from source) when the cache is
 * missing, from another build, or from another V8.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { describeWhere, unless } from '../../helpers/requirements.js'
import { buildIdLine, buildIdOf, cacheFileFor, loadBundle, makeCodeCache } from '../../../src/cli/code-cache.js'

const dir = mkdtempSync(join(tmpdir(), 'cordon-code-cache-test-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function bundle(name: string, body: string, id = 'a1b2c3d4e5f60718293a4b5c6d7e8f90'): string {
  const file = join(dir, name)
  writeFileSync(file, `'use strict';${body}${buildIdLine(id)}`)
  return file
}

describe('code cache', () => {
  const body = "const path = require('node:path'); exports.answer = () => 42; exports.file = __filename; exports.base = path.basename(__dirname); exports.strict = (function () { return this === undefined })();"

  it('loads a bundle with the cache made for it', () => {
    const file = bundle('a.cjs', body)
    writeFileSync(cacheFileFor(file), makeCodeCache(file, (m) => (m.answer as () => number)()))
    const loaded = loadBundle(file)!
    expect(loaded.cached).toBe(true)
    expect((loaded.exports.answer as () => number)()).toBe(42)
    expect(loaded.exports.file).toBe(file)
    expect(loaded.exports.base).toBe(dir.split('/').pop())
    expect(loaded.exports.strict).toBe(true)
  })

  it('compiles from source without a cache, or with one from another build or another V8', () => {
    const file = bundle('b.cjs', body)
    expect(loadBundle(file)!.cached).toBe(false)
    const cache = makeCodeCache(file)
    // Same length, another build id: V8 alone would accept it (it only compares lengths).
    writeFileSync(file, readFileSync(file, 'utf8').replace('a1b2c3d4e5f60718293a4b5c6d7e8f90', 'ffffffffffffffffffffffffffffffff'))
    writeFileSync(cacheFileFor(file), cache)
    const other = loadBundle(file)!
    expect(other.cached).toBe(false)
    expect((other.exports.answer as () => number)()).toBe(42)
    const nl = cache.indexOf(10)
    const [magic, id] = cache.subarray(0, nl).toString('latin1').split(' ')
    writeFileSync(file, readFileSync(file, 'utf8').replace('ffffffffffffffffffffffffffffffff', id!))
    writeFileSync(cacheFileFor(file), Buffer.concat([Buffer.from(`${magic} ${id} 0.0.0-other-v8\n`), cache.subarray(nl + 1)]))
    expect(loadBundle(file)!.cached).toBe(false)
    writeFileSync(cacheFileFor(file), 'garbage')
    expect(loadBundle(file)!.cached).toBe(false)
  })

  it('no bundle: null (the caller falls back to the ESM entry)', () => {
    expect(loadBundle(join(dir, 'missing.cjs'))).toBeNull()
  })

  it('reads the build id from the last line only when well formed', () => {
    expect(buildIdOf(`x${buildIdLine('0123456789abcdef')}`)).toBe('0123456789abcdef')
    expect(buildIdOf('no id')).toBeNull()
    expect(buildIdOf('//# cordon-build-id=not-hex')).toBeNull()
    writeFileSync(join(dir, 'd.cjs'), body)
    expect(() => makeCodeCache(join(dir, 'd.cjs'))).toThrow(/build id/)
  })
})

describeWhere(unless(process.platform === 'linux', 'plans a Landlock-mode run and lists this process\'s children in /proc: Linux only'), "the build's warm-up of run.cjs", () => {
  it('plans a run with the given flags and starts nothing: the same report as the sandbox it describes', async () => {
    const { planFromArgs } = await import('../../../src/cli/run.js')
    const { createSandbox } = await import('../../../src/sandbox/sandbox.js')
    const children = () => readdirSync('/proc/self/task').flatMap((t) => readFileSync(`/proc/self/task/${t}/children`, 'latin1').trim().split(/\s+/).filter(Boolean)).sort()
    const cwd = mkdtempSync(join(dir, 'plan-'))
    const before = children()
    const planned = planFromArgs(['--mode', 'landlock', '--cwd', cwd, '--compat', 'best-effort', '--', '/bin/true'])
    expect(children()).toEqual(before) // no zygote, no command
    const sb = createSandbox({ mode: 'landlock', cwd, compat: 'best-effort' })
    const direct = sb.report()
    sb.close()
    expect(planned.mode).toBe('landlock')
    // The same plan but for the sandbox's own $TMPDIR (each sandbox makes one).
    const own = (roots: readonly string[]) => roots.filter((r) => !/\/cordon-[A-Za-z0-9]{6}$/.test(r))
    expect(own(planned.filesystem.writeRoots)).toEqual(own(direct.filesystem.writeRoots))
    expect(own(planned.filesystem.writeRoots).some((r) => r.endsWith(cwd.split('/').pop()!))).toBe(true)
    expect({ ...planned.filesystem, writeRoots: [] }).toEqual({ ...direct.filesystem, writeRoots: [] })
    expect(planned.mechanisms).toEqual(direct.mechanisms)
  })

  it('refuses a bad command line with a usage error', async () => {
    const { planFromArgs } = await import('../../../src/cli/run.js')
    expect(() => planFromArgs(['--timeout', 'soon', '--', '/bin/true'])).toThrow(/--timeout must be a whole number/)
  })
})
