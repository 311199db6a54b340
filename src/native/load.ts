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
import { accessSync, chmodSync, constants, copyFileSync, existsSync, mkdtempSync, readFileSync, rmdirSync, rmSync, unlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { LoadError } from '../errors.js'
import { isWithin } from '../profile/paths.js'
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
export const ADDON_ABI = 3

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

let privateLauncher: string | undefined

/** The private copy and its directory, at exit: nothing else is in there (a plain unlink and rmdir, no recursive remover to load). */
function removeCopy(dir: string, copy: string): void {
  try {
    unlinkSync(copy)
    rmdirSync(dir)
  } catch {
    try {
      rmSync(dir, { recursive: true, force: true })
    } catch {
      /* left in the temp dir: an exit handler must not throw */
    }
  }
}

/**
 * The launcher to execute for a sandbox with these write roots. When the
 * shipped launcher lies inside a write root (cordon installed in the
 * workspace's node_modules, the usual case for an agent working on a
 * project), sandboxed code could replace it and the *next* launch would run
 * the replacement before any confinement. Then a private copy, made once
 * per process in a fresh 0700 directory outside the workspace, is used.
 */
export function launcherFor(writeRoots: readonly string[]): string {
  const shipped = loadNative().launcherPath
  const writable = (p: string) => writeRoots.some((root) => isWithin(p, root))
  if (!writable(shipped)) return shipped
  if (privateLauncher && writable(privateLauncher)) privateLauncher = undefined
  if (!privateLauncher) {
    const dir = mkdtempSync(join(tmpdir(), 'cordon-launcher-'))
    if (writable(dir)) {
      rmSync(dir, { recursive: true, force: true })
      // Everywhere we could copy it to is writable by the sandbox too (write
      // root "/", or TMPDIR inside the workspace): nothing to protect it with.
      if (writeRoots.includes('/')) return shipped
      throw new LoadError('no place outside the write roots for a private launcher copy', [tmpdir()], 'point TMPDIR at a directory outside the sandbox write roots')
    }
    const copy = join(dir, basename(shipped))
    copyFileSync(shipped, copy)
    chmodSync(copy, 0o500)
    process.once('exit', () => removeCopy(dir, copy))
    privateLauncher = copy
  }
  return privateLauncher
}
