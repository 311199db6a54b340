/**
 * The one loader of cordon's native code: the addon (via node-gyp-build, which
 * prefers a local build/Release over prebuilds/<platform>-<arch>) and the
 * launcher executable that ships beside it. Loaded lazily, once.
 */
import { createRequire } from 'node:module'
// Imported, not required at run time: the CLI bundle then carries it (plain JS,
// no dynamic requires of its own), and `cordon run` does not resolve and
// compile it from node_modules on every start (~4 ms).
import gypBuild from 'node-gyp-build'
import { accessSync, constants, existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { LoadError } from '../errors.js'
import type { NativeBinding } from './binding.js'

const require = createRequire(import.meta.url)
/**
 * The package root: the nearest directory above this module whose
 * package.json names `cordon` (src/native/, dist/native/ or the CLI bundle
 * in dist/cli-bundle/ all resolve to it).
 */
function findPackageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    try {
      if ((JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string }).name === 'cordon') return dir
    } catch {
      /* no package.json here */
    }
    if (dirname(dir) === dir) return resolve(from, '..', '..')
  }
}
export const packageRoot = findPackageRoot(dirname(fileURLToPath(import.meta.url)))

const BUILD_FIX =
  'run `npm rebuild cordon` (a source build needs: apt-get install build-essential python3 libseccomp-dev)'

let cached: { binding: NativeBinding; addonPath: string; launcherPath: string } | undefined

/** The addon's `abiVersion` this JavaScript is written for (native/binding.cc). */
export const ADDON_ABI = 10

/**
 * Where node-gyp-build would look first for this package's layout: a local
 * build, else the one prebuild cordon ships for this platform (untagged
 * `cordon.node`, which node-gyp-build accepts on any libc and runtime).
 * Found directly with one or two stats; node-gyp-build's own search
 * (directory listings, tag parsing, a require of package.json) is ~2 ms of
 * every `cordon run` and still decides whenever this layout is not there.
 */
function shippedAddon(): string | undefined {
  // node-gyp-build's own overrides (a prebuild elsewhere, prebuilds only, another platform/arch): its search decides.
  if (['PREBUILDS_ONLY', 'npm_config_arch', 'npm_config_platform', 'npm_config_libc'].some((v) => process.env[v]) || Object.keys(process.env).some((k) => k.endsWith('_PREBUILD'))) return undefined
  const local = join(packageRoot, 'build', 'Release', 'cordon.node')
  if (existsSync(local)) return local // binding.gyp builds no other .node there
  if (existsSync(join(packageRoot, 'build', 'Debug'))) return undefined // node-gyp-build's order decides
  const prebuilt = join(packageRoot, 'prebuilds', `${process.platform}-${process.arch}`, 'cordon.node')
  return existsSync(prebuilt) ? prebuilt : undefined
}

function addonPath(): string {
  const shipped = shippedAddon()
  if (shipped) return shipped
  try {
    return gypBuild.resolve(packageRoot)
  } catch (cause) {
    throw new LoadError(
      'no cordon native addon for this platform',
      [join(packageRoot, 'build/Release'), join(packageRoot, 'prebuilds', `${process.platform}-${process.arch}`)],
      BUILD_FIX,
      cause,
    )
  }
}

function launcherBeside(addon: string): string {
  const name = process.platform === 'win32' ? 'cordon-launcher.exe' : 'cordon-launcher'
  const path = join(dirname(addon), name)
  try {
    accessSync(path, constants.X_OK)
  } catch (cause) {
    throw new LoadError('the cordon launcher is missing or not executable', [path], BUILD_FIX, cause)
  }
  return path
}

export function loadNative(): { binding: NativeBinding; addonPath: string; launcherPath: string } {
  if (cached) return cached
  const path = addonPath()
  let binding: NativeBinding
  try {
    binding = require(path) as NativeBinding
  } catch (cause) {
    throw new LoadError('the cordon native addon failed to load', [path], BUILD_FIX, cause)
  }
  if (binding.abiVersion !== ADDON_ABI) {
    // A build older or newer than this JavaScript (a stale build/Release): its functions would not match.
    throw new LoadError(`the cordon native addon at ${path} is version ${String(binding.abiVersion)}, this cordon needs ${ADDON_ABI}`, [path], BUILD_FIX)
  }
  cached = { binding, addonPath: path, launcherPath: launcherBeside(path) }
  return cached
}
