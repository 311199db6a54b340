/**
 * Fast start for the CLI: load a CommonJS bundle together with a V8 code
 * cache that the build wrote beside it (`<bundle>.v8cache`), so V8
 * deserialises bytecode instead of parsing and compiling the bundle — zod
 * alone is ~190 KB — on every start. Node 20 has no compile cache of its own
 * (`module.enableCompileCache` is Node 22+); `vm.Script` with `cachedData`
 * is the supported way.
 *
 * Trust: the cache is written by the build into the same directory as the
 * bundle and is nothing more trusted than the bundle itself; nothing is
 * written at run time. V8 refuses a cache from another V8 version or other
 * V8 flags, but only compares the *length* of the source; so the build also
 * ends the bundle with a build id line and puts the same id in the cache
 * header, and a cache whose id does not match the bundle is not used.
 * Anything unusable (missing, other node, other build) falls back to a
 * plain compile of the same bundle.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import vm from 'node:vm'

const MAGIC = 'cordon-v8-cache/1'
const ID_LINE = '//# cordon-build-id='

/** The cache file of a bundle. */
export function cacheFileFor(bundle: string): string {
  return `${bundle}.v8cache`
}

/** The function Node itself would wrap a CommonJS module in (the cache is made for exactly this text). */
function wrap(source: string): string {
  return `(function (exports, require, module, __filename, __dirname) {${source}\n})`
}

/** The build id the bundle ends with, or null. */
export function buildIdOf(source: string): string | null {
  const at = source.lastIndexOf(ID_LINE)
  if (at < 0) return null
  const id = source.slice(at + ID_LINE.length).trim()
  return /^[0-9a-f]{16,64}$/.test(id) ? id : null
}

/** `MAGIC id v8version\n` then V8's data. */
function parseCache(data: Buffer): { id: string; v8: string; payload: Buffer } | null {
  const nl = data.indexOf(10)
  if (nl < 0 || nl > 200) return null
  const [magic, id, v8] = data.subarray(0, nl).toString('latin1').split(' ')
  if (magic !== MAGIC || !id || !v8) return null
  return { id, v8, payload: data.subarray(nl + 1) }
}

export interface LoadedBundle {
  exports: Record<string, unknown>
  /** Whether V8 took the cache (false: compiled from source). */
  cached: boolean
}

function run(bundle: string, script: vm.Script): Record<string, unknown> {
  const module = { exports: {} as Record<string, unknown> }
  const fn = script.runInThisContext() as (e: unknown, r: NodeRequire, m: unknown, f: string, d: string) => void
  fn.call(module.exports, module.exports, createRequire(bundle), module, bundle, dirname(bundle))
  return module.exports
}

function compile(bundle: string, source: string, cachedData?: Buffer): vm.Script {
  return new vm.Script(wrap(source), { filename: bundle, ...(cachedData ? { cachedData } : {}) })
}

/** Load a CommonJS bundle, with its code cache when the cache belongs to it; null when there is no bundle. */
export function loadBundle(bundle: string): LoadedBundle | null {
  let source: string
  try {
    source = readFileSync(bundle, 'utf8')
  } catch {
    return null
  }
  let cachedData: Buffer | undefined
  try {
    const c = parseCache(readFileSync(cacheFileFor(bundle)))
    if (c && c.v8 === process.versions.v8 && c.id === buildIdOf(source)) cachedData = c.payload
  } catch {
    /* no cache: compile */
  }
  const script = compile(bundle, source, cachedData)
  return { exports: run(bundle, script), cached: cachedData !== undefined && script.cachedDataRejected === false }
}

/**
 * Build time: run the bundle once (its top level, then `warm` on its
 * exports, so the functions they compile are in the cache too) and return
 * the cache file's contents. The bundle must end with its build id line.
 */
export function makeCodeCache(bundle: string, warm?: (exports: Record<string, unknown>) => void): Buffer {
  const source = readFileSync(bundle, 'utf8')
  const id = buildIdOf(source)
  if (!id) throw new Error(`${bundle} has no build id line`)
  const script = compile(bundle, source)
  warm?.(run(bundle, script))
  return Buffer.concat([Buffer.from(`${MAGIC} ${id} ${process.versions.v8}\n`, 'latin1'), script.createCachedData()])
}

/** The line the build appends to a bundle (the id: a hash of everything before it). */
export function buildIdLine(id: string): string {
  return `\n${ID_LINE}${id}\n`
}
