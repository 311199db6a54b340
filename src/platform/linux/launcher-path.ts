/**
 * Which launcher binary a Linux launch executes. The launcher runs before
 * any confinement, so it must not be one the sandboxed command can
 * replace: when the shipped one lies inside a write root, a private copy
 * is used instead.
 */
import { chmodSync, copyFileSync, mkdtempSync, rmdirSync, rmSync, unlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { LoadError } from '../../errors.js'
import { loadNative } from '../../native/load.js'
import { isWithin } from '../../profile/paths.js'

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
