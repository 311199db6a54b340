// After `prebuildify --napi --strip`: put the launcher beside the addon and
// record the native source hash (see native-hash.mjs).
import { copyFileSync, chmodSync, writeFileSync, readdirSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { nativeSourceHash, root } from './native-hash.mjs'

const dir = join(root, 'prebuilds', `${process.platform}-${process.arch}`)
const launcher = process.platform === 'win32' ? 'cordon-launcher.exe' : 'cordon-launcher'
copyFileSync(join(root, 'build', 'Release', launcher), join(dir, launcher))
chmodSync(join(dir, launcher), 0o755)
if (process.platform === 'linux') execFileSync('strip', [join(dir, launcher)])
const stamp = { sourceHash: nativeSourceHash(), files: readdirSync(dir).sort(), node: process.version }
writeFileSync(join(dir, 'SOURCE_HASH.json'), JSON.stringify(stamp, null, 2) + '\n')
console.log(`prebuild stamped: ${dir} ${stamp.sourceHash}`)
