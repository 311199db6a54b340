// The second half of `npm run prebuilds` (after `prebuildify --napi --strip`
// has built the addon and put it in prebuilds/<platform>-<arch>/): put the
// launcher beside it, stripped the same way, and stamp both with what they
// were built from (native-hash.mjs): the source hash, each binary's sha256,
// and the toolchain. check-prebuild.mjs rebuilds them from the committed
// sources with this same script and compares byte for byte.
import { chmodSync, copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { nativeSourceHash, root, toolchainOf } from './native-hash.mjs'

const STAMP = 'SOURCE_HASH.json'

const dir = join(root, 'prebuilds', `${process.platform}-${process.arch}`)
const launcher = process.platform === 'win32' ? 'cordon-launcher.exe' : 'cordon-launcher'
copyFileSync(join(root, 'build', 'Release', launcher), join(dir, launcher))
chmodSync(join(dir, launcher), 0o755)
// --strip-all, as prebuildify --strip does for the addon: no symbol table,
// no debug sections; what remains is the same bytes wherever it was built.
if (process.platform === 'linux') execFileSync('strip', ['--strip-all', join(dir, launcher)])
const binaries = readdirSync(dir).filter((f) => f !== STAMP).sort()
const stamp = {
  sourceHash: nativeSourceHash(),
  files: [...binaries, STAMP].sort(),
  sha256: Object.fromEntries(binaries.map((f) => [f, createHash('sha256').update(readFileSync(join(dir, f))).digest('hex')])),
  toolchain: toolchainOf(join(root, 'build')),
}
writeFileSync(join(dir, STAMP), JSON.stringify(stamp, null, 2) + '\n')
console.log(`prebuild stamped: ${dir} ${stamp.sourceHash}`)
