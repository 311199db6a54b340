/**
 * The one loader of cordon's native code: the addon (via node-gyp-build, which
 * prefers a local build/Release over prebuilds/<platform>-<arch>) and the
 * launcher executable that ships beside it. Loaded lazily, once.
 */
import { createRequire } from 'node:module'
import { accessSync, constants } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { LoadError } from '../errors.js'
import type { NativeBinding } from './binding.js'

const require = createRequire(import.meta.url)
/** Package root: dist/native/load.js or src/native/load.ts → two levels up. */
export const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')

const BUILD_FIX =
  'run `npm rebuild cordon` (a source build needs: apt-get install build-essential python3 libseccomp-dev)'

let cached: { binding: NativeBinding; addonPath: string; launcherPath: string } | undefined

function addonPath(): string {
  const gypBuild = require('node-gyp-build') as { resolve(dir: string): string }
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
  cached = { binding, addonPath: path, launcherPath: launcherBeside(path) }
  return cached
}
