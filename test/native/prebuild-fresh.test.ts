/**
 * The committed prebuilds against the tree, cheaply (no rebuild): built from
 * these native sources, stamped with each binary's hash and the toolchain.
 * The full proof, a rebuild from the committed sources compared byte for
 * byte, is scripts/check-prebuild.mjs, which CI runs; its verdicts are
 * tested here on doctored copies.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
// @ts-expect-error plain ESM script without types
import { nativeSourceHash, root } from '../../scripts/native-hash.mjs'
// @ts-expect-error plain ESM script without types
import { compare, explain } from '../../scripts/check-prebuild.mjs'

interface Stamp {
  sourceHash: string
  files: string[]
  sha256: Record<string, string>
  toolchain: { packages?: Record<string, string>; flags: Record<string, { compile: string[]; link: string[] }> }
}
type Verdict = { ok: boolean; lines: string[] }
const check = { compare, explain } as {
  compare: (committed: string, rebuilt: string) => unknown
  explain: (platform: string, report: unknown, committed: Stamp, rebuilt: Stamp) => Verdict
}

const dir = join(root as string, 'prebuilds')
const platforms = existsSync(dir) ? readdirSync(dir).filter((d) => !d.startsWith('.')) : []
const stampOf = (d: string) => JSON.parse(readFileSync(join(d, 'SOURCE_HASH.json'), 'utf8')) as Stamp

describe('committed prebuilds', () => {
  it('exist for linux-x64 (a fresh npm install needs no compiler)', () => {
    expect(platforms).toContain('linux-x64')
  })

  it.each(platforms)('%s was built from the native sources in this tree', (platform) => {
    const stampFile = join(dir, platform, 'SOURCE_HASH.json')
    expect(existsSync(stampFile), `${stampFile} missing: run npm run prebuilds`).toBe(true)
    const stamp = stampOf(join(dir, platform))
    expect(stamp.sourceHash, 'native/ changed since the prebuild: run npm run prebuilds').toBe((nativeSourceHash as () => string)())
    const launcher = platform.startsWith('win32') ? 'cordon-launcher.exe' : 'cordon-launcher'
    expect(stamp.files).toContain(launcher)
    expect(existsSync(join(dir, platform, launcher))).toBe(true)
  })

  it.each(platforms)('%s: the stamp names each binary by its sha256 and records the toolchain', (platform) => {
    const stamp = stampOf(join(dir, platform))
    const binaries = readdirSync(join(dir, platform)).filter((f) => f !== 'SOURCE_HASH.json').sort()
    expect(Object.keys(stamp.sha256).sort()).toEqual(binaries)
    for (const f of binaries) expect(createHash('sha256').update(readFileSync(join(dir, platform, f))).digest('hex'), f).toBe(stamp.sha256[f])
    expect(Object.keys(stamp.toolchain.flags).sort()).toEqual(['cordon-launcher', 'cordon.node'])
    // Node's own code-generation flags are taken out (binding.gyp): ours apply.
    for (const t of Object.values(stamp.toolchain.flags)) expect(t.compile).not.toContain('-O3')
  })
})

describe('check-prebuild verdicts', () => {
  const work = mkdtempSync(join(tmpdir(), 'cordon-prebuild-verdict-'))
  afterAll(() => rmSync(work, { recursive: true, force: true }))
  const committed = join(dir, 'linux-x64')
  const copy = (name: string, edit?: (d: string) => void) => {
    const d = join(work, name)
    cpSync(committed, d, { recursive: true })
    edit?.(d)
    return d
  }
  const flipByte = (file: string) => {
    const b = readFileSync(file)
    const at = b.length >> 1
    b[at] = b[at]! ^ 0xff
    writeFileSync(file, b)
  }

  it('identical binaries: reproduced', () => {
    const v = check.explain('linux-x64', check.compare(committed, copy('same')), stampOf(committed), stampOf(committed))
    expect(v.ok).toBe(true)
    expect(v.lines[0]).toMatch(/reproduced byte for byte/)
  })

  it('one byte differs, same toolchain: not reproduced, and the committed binary is not trusted', () => {
    const rebuilt = copy('tampered', (d) => flipByte(join(d, 'cordon-launcher')))
    const v = check.explain('linux-x64', check.compare(committed, rebuilt), stampOf(committed), stampOf(committed))
    expect(v.ok).toBe(false)
    expect(v.lines.join('\n')).toMatch(/cordon-launcher: committed sha256 [0-9a-f]{64}, rebuilt [0-9a-f]{64}[\s\S]*cordon\.node: identical[\s\S]*NOT what these/)
  })

  it('differs with another toolchain: names what changed', () => {
    const rebuilt = copy('other-toolchain', (d) => flipByte(join(d, 'cordon.node')))
    const other = stampOf(committed)
    other.toolchain.packages = { ...other.toolchain.packages, 'libc6-dev': 'another-version' }
    other.toolchain.flags['cordon.node']!.compile = [...other.toolchain.flags['cordon.node']!.compile, '-flto']
    const text = check.explain('linux-x64', check.compare(committed, rebuilt), stampOf(committed), other).lines.join('\n')
    expect(text).toMatch(/another toolchain/)
    expect(text).toMatch(/packages\.libc6-dev: .* \(committed\) → "another-version" \(here\)/)
    expect(text).toMatch(/flags\.cordon\.node\.compile: only here: -flto/)
  })

  it('a binary missing on either side is a difference', () => {
    const rebuilt = copy('missing', (d) => rmSync(join(d, 'cordon.node')))
    expect(check.explain('linux-x64', check.compare(committed, rebuilt), stampOf(committed), stampOf(committed)).ok).toBe(false)
  })
})
