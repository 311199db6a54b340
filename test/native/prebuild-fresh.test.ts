import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
// @ts-expect-error plain ESM script without types
import { nativeSourceHash, root } from '../../scripts/native-hash.mjs'

const dir = join(root as string, 'prebuilds')
const platforms = existsSync(dir) ? readdirSync(dir).filter((d) => !d.startsWith('.')) : []

describe('committed prebuilds', () => {
  it('exist for linux-x64 (a fresh npm install needs no compiler)', () => {
    expect(platforms).toContain('linux-x64')
  })

  it.each(platforms)('%s was built from the native sources in this tree', (platform) => {
    const stampFile = join(dir, platform, 'SOURCE_HASH.json')
    expect(existsSync(stampFile), `${stampFile} missing: run npm run prebuilds`).toBe(true)
    const stamp = JSON.parse(readFileSync(stampFile, 'utf8')) as { sourceHash: string; files: string[] }
    expect(stamp.sourceHash, 'native/ changed since the prebuild: run npm run prebuilds').toBe((nativeSourceHash as () => string)())
    const launcher = platform.startsWith('win32') ? 'cordon-launcher.exe' : 'cordon-launcher'
    expect(stamp.files).toContain(launcher)
    expect(existsSync(join(dir, platform, launcher))).toBe(true)
  })
})
