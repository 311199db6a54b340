// The hash of every input of the native build (native/**, binding.gyp).
// Recorded beside each prebuild; the test suite and CI compare it with the
// sources so a committed prebuild can never silently be stale.
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = fileURLToPath(new URL('..', import.meta.url))

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name)
    return e.isDirectory() ? files(p) : [p]
  })
}

export function nativeSourceHash() {
  const h = createHash('sha256')
  const inputs = [...files(join(root, 'native')), join(root, 'binding.gyp')].sort()
  for (const f of inputs) {
    h.update(relative(root, f) + '\0')
    h.update(readFileSync(f))
    h.update('\0')
  }
  return h.digest('hex')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(nativeSourceHash())
