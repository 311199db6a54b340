// Trust in the committed prebuilds. The launcher runs before any
// confinement and the addon is loaded into the caller's process, so a
// binary in prebuilds/ must be exactly what the committed sources build to.
//
//   node scripts/check-prebuild.mjs [--keep]
//
// 1. The stamp's source hash must match native/ and binding.gyp: a stale
//    prebuild fails at once, without a rebuild.
// 2. The build inputs git tracks (native/, binding.gyp, package.json and
//    the two prebuild scripts), with node-addon-api from node_modules, are
//    copied into a fresh temp dir and `npm run prebuilds` runs there: the
//    steps a developer runs, in another absolute directory.
// 3. Every binary is compared byte for byte with the committed one. On a
//    difference the toolchain recorded in the committed stamp is compared
//    with this machine's, to tell "built with another toolchain" from "same
//    toolchain, different bytes" (then the committed binary is not what
//    these sources build to).
// Exit status 0 only when every binary of this platform was reproduced.
// --keep leaves the temp dir (its build.log and prebuilds/) for inspection.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { nativeInputs, nativeSourceHash, root } from './native-hash.mjs'

const STAMP = 'SOURCE_HASH.json'
const SCRIPTS = ['scripts/stamp-prebuild.mjs', 'scripts/native-hash.mjs']
const sha256 = (buf) => createHash('sha256').update(buf).digest('hex')
const git = (args) => {
  const r = spawnSync('git', ['-C', root, ...args], { encoding: 'utf8' })
  return r.status === 0 ? r.stdout : undefined
}

/** The build inputs as git tracks them (the committed set of files), or, outside a checkout, as they are on disk. */
export function buildInputs() {
  const tracked = git(['ls-files', '-z', '--', 'native', 'binding.gyp', 'package.json', ...SCRIPTS])
  return tracked ? tracked.split('\0').filter(Boolean).sort() : [...nativeInputs(), 'package.json', ...SCRIPTS]
}

/** `npm run prebuilds` in a fresh copy of the inputs; the dir that holds its prebuilds/. */
export function rebuild(keep = false) {
  const work = mkdtempSync(join(tmpdir(), 'cordon-prebuild-check-'))
  for (const f of buildInputs()) {
    mkdirSync(dirname(join(work, f)), { recursive: true })
    cpSync(join(root, f), join(work, f))
  }
  // Copied, not linked: its include path must be relative to the build the
  // same way as in the checkout (node_modules/node-addon-api).
  cpSync(join(root, 'node_modules', 'node-addon-api'), join(work, 'node_modules', 'node-addon-api'), { recursive: true })
  const env = { ...process.env, PATH: `${join(root, 'node_modules', '.bin')}:${process.env.PATH ?? '/usr/bin:/bin'}` }
  const r = spawnSync('npm', ['run', 'prebuilds'], { cwd: work, env, encoding: 'utf8', maxBuffer: 64 << 20 })
  writeFileSync(join(work, 'build.log'), `${r.stdout ?? ''}${r.stderr ?? ''}`)
  if (r.status !== 0) {
    const tail = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim().split('\n').slice(-20).join('\n')
    if (!keep) rmSync(work, { recursive: true, force: true })
    throw new Error(`npm run prebuilds failed (exit ${r.status}${keep ? `; see ${work}/build.log` : ''}):\n${tail}`)
  }
  return work
}

/** Byte-for-byte comparison of the binaries of two prebuild dirs (one platform). */
export function compare(committedDir, rebuiltDir) {
  const binaries = (d) => (existsSync(d) ? readdirSync(d).filter((f) => f !== STAMP) : [])
  const names = [...new Set([...binaries(committedDir), ...binaries(rebuiltDir)])].sort()
  const report = { same: [], differ: [] }
  for (const name of names) {
    const a = existsSync(join(committedDir, name)) ? readFileSync(join(committedDir, name)) : undefined
    const b = existsSync(join(rebuiltDir, name)) ? readFileSync(join(rebuiltDir, name)) : undefined
    const entry = { name, committed: a ? sha256(a) : 'missing', rebuilt: b ? sha256(b) : 'missing' }
    if (a && b && a.equals(b)) report.same.push(entry)
    else report.differ.push(entry)
  }
  return report
}

function flatten(value, prefix, out) {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out)
  } else out.set(prefix, value)
  return out
}

/** What differs between two recorded toolchains, one line each. */
export function toolchainDiff(committed, here) {
  const a = flatten(committed ?? {}, '', new Map())
  const b = flatten(here ?? {}, '', new Map())
  const lines = []
  for (const key of [...new Set([...a.keys(), ...b.keys()])].sort()) {
    const [x, y] = [a.get(key), b.get(key)]
    if (JSON.stringify(x) === JSON.stringify(y)) continue
    if (Array.isArray(x) && Array.isArray(y)) {
      const added = y.filter((v) => !x.includes(v))
      const removed = x.filter((v) => !y.includes(v))
      const parts = [removed.length && `only in the committed build: ${removed.join(' ')}`, added.length && `only here: ${added.join(' ')}`]
      lines.push(`${key}: ${parts.filter(Boolean).join('; ')}`)
    } else lines.push(`${key}: ${JSON.stringify(x) ?? 'not recorded'} (committed) → ${JSON.stringify(y) ?? 'not found'} (here)`)
  }
  return lines
}

const readStamp = (dir) => (existsSync(join(dir, STAMP)) ? JSON.parse(readFileSync(join(dir, STAMP), 'utf8')) : undefined)

/** The verdict for one platform: { ok, lines }. */
export function explain(platform, report, committedStamp, rebuiltStamp) {
  const where = `prebuilds/${platform}`
  const lines = []
  if (report.differ.length === 0) {
    lines.push(`${where}: reproduced byte for byte from the sources (${report.same.map((e) => `${e.name} ${e.committed.slice(0, 16)}`).join(', ')})`)
    const drift = toolchainDiff(committedStamp?.toolchain, rebuiltStamp?.toolchain)
    if (drift.length) lines.push(`  (this machine's toolchain differs from the recorded one, and the output did not change: ${drift.length} difference(s))`)
    return { ok: true, lines }
  }
  lines.push(`${where}: NOT REPRODUCED. A rebuild of the committed sources differs from the committed binaries:`)
  for (const e of report.differ) lines.push(`  ${e.name}: committed sha256 ${e.committed}, rebuilt ${e.rebuilt}`)
  for (const e of report.same) lines.push(`  ${e.name}: identical`)
  const drift = toolchainDiff(committedStamp?.toolchain, rebuiltStamp?.toolchain)
  if (!committedStamp?.toolchain) {
    lines.push('  The committed stamp records no toolchain, so the cause cannot be narrowed down.')
  } else if (drift.length === 0) {
    lines.push('  The toolchain is the one recorded for the committed build, so the committed binaries are NOT what these')
    lines.push('  sources build to (or the build is not deterministic). Do not ship them: run `npm run prebuilds`, review, commit.')
  } else {
    lines.push('  This machine builds with another toolchain than the committed prebuilds were built with:')
    for (const d of drift) lines.push(`    ${d}`)
    lines.push('  Either regenerate the prebuilds here (`npm run prebuilds`, then commit: the static launcher then carries')
    lines.push('  this machine\'s libc) or run this check where the recorded toolchain is installed.')
  }
  return { ok: false, lines }
}

function main() {
  const keep = process.argv.includes('--keep')
  const dir = join(root, 'prebuilds')
  const platforms = existsSync(dir) ? readdirSync(dir).filter((d) => existsSync(join(dir, d, STAMP))) : []
  if (platforms.length === 0) {
    console.log('prebuilds: none committed (installs build from source)')
    return 0
  }
  const current = nativeSourceHash()
  const stale = platforms.filter((p) => readStamp(join(dir, p)).sourceHash !== current)
  for (const p of stale) console.log(`prebuilds/${p}: STALE (built from ${readStamp(join(dir, p)).sourceHash.slice(0, 12)}, sources are ${current.slice(0, 12)}); run npm run prebuilds`)
  if (stale.length) return 1
  const here = `${process.platform}-${process.arch}`
  for (const p of platforms.filter((p) => p !== here)) console.log(`prebuilds/${p}: source hash matches; not rebuilt (only ${here} can be rebuilt on this machine)`)
  if (!platforms.includes(here)) return 0
  const dirty = git(['status', '--porcelain', '--', 'native', 'binding.gyp', 'prebuilds', ...SCRIPTS])
  const head = git(['rev-parse', '--short', 'HEAD'])?.trim()
  console.log(`prebuilds/${here}: rebuilding from the sources of ${head ?? 'this tree'}${dirty ? ' (with uncommitted changes)' : ''} in a temp dir…`)
  const work = rebuild(keep)
  try {
    const committedDir = join(dir, here)
    const rebuiltDir = join(work, 'prebuilds', here)
    const verdict = explain(here, compare(committedDir, rebuiltDir), readStamp(committedDir), readStamp(rebuiltDir))
    for (const line of verdict.lines) console.log(line)
    if (keep) console.log(`rebuild kept in ${work}`)
    return verdict.ok ? 0 : 1
  } finally {
    if (!keep) rmSync(work, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    process.exitCode = main()
  } catch (e) {
    console.error(`prebuild check failed: ${e instanceof Error ? e.message : String(e)}`)
    process.exitCode = 1
  }
}
