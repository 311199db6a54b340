/**
 * Where the Windows backend keeps what outlives one launch: the ACL
 * journals (native/win32/acl.c) and, when the shipped launcher lies inside
 * a write root, a private copy of it. Both must be outside every write
 * root — the command can write nowhere else (its token is write-restricted
 * to the write roots) — so a journal cannot be forged and the launcher that
 * runs before any confinement cannot be replaced for the next launch.
 */
import { builtin } from '../../native/builtin.js'

const crypto = builtin<typeof import('node:crypto')>('node:crypto')
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs'
import { homedir } from 'node:os'
import { win32 } from 'node:path'
import { LoadError } from '../../errors.js'
import { isWithinWin32 } from './paths.js'

/** %LOCALAPPDATA%\cordon (per user, not roamed), else the profile's AppData\Local\cordon. */
export function stateDir(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  const base = env.LOCALAPPDATA && win32.isAbsolute(env.LOCALAPPDATA) ? env.LOCALAPPDATA : win32.join(home, 'AppData', 'Local')
  return win32.join(base, 'cordon')
}

export function journalDir(state: string): string {
  return win32.join(state, 'acl-journal')
}

/** The state directory, refused when a write root covers it (a journal there could be forged by the command). */
export function checkedStateDir(writeRoots: readonly string[], env?: NodeJS.ProcessEnv, home?: string): string {
  const dir = stateDir(env, home)
  const root = writeRoots.find((r) => isWithinWin32(dir, r))
  if (root) {
    throw new LoadError(`cordon's state directory ${dir} lies inside the write root ${root}: the command could forge its ACL journal`, [dir], 'set LOCALAPPDATA to a directory outside the write roots')
  }
  return dir
}

/**
 * The launcher to run for these write roots: the shipped one, or a copy in
 * the state directory named by its content hash (made once, reused) when
 * the shipped one is inside a write root.
 */
export function launcherFor(shipped: string, writeRoots: readonly string[], state: string): string {
  if (!writeRoots.some((r) => isWithinWin32(shipped, r))) return shipped
  const bytes = readFileSync(shipped)
  const copy = win32.join(state, `cordon-launcher-${crypto().createHash('sha256').update(bytes).digest('hex').slice(0, 16)}.exe`)
  if (!existsSync(copy)) {
    mkdirSync(state, { recursive: true })
    const tmp = `${copy}.${process.pid}.tmp`
    copyFileSync(shipped, tmp)
    renameSync(tmp, copy) // whole or not at all: a launch never runs a half-written copy
  }
  return copy
}
