// Fail when a committed prebuild was built from other native sources than
// the ones in native/ (a fresh `npm install` would load a stale binary).
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { nativeSourceHash, root } from './native-hash.mjs'

const dir = join(root, 'prebuilds')
const current = nativeSourceHash()
const platforms = existsSync(dir) ? readdirSync(dir).filter((d) => existsSync(join(dir, d, 'SOURCE_HASH.json'))) : []
let stale = 0
for (const p of platforms) {
  const stamp = JSON.parse(readFileSync(join(dir, p, 'SOURCE_HASH.json'), 'utf8'))
  const ok = stamp.sourceHash === current
  if (!ok) stale++
  console.log(`prebuilds/${p}: ${ok ? 'fresh' : `STALE (built from ${stamp.sourceHash.slice(0, 12)}, sources are ${current.slice(0, 12)}); run npm run prebuilds`}`)
}
if (platforms.length === 0) console.log('prebuilds: none committed (installs build from source)')
process.exitCode = stale ? 1 : 0
