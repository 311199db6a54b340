/**
 * The run's own temp root, made by the vitest globalSetup before any test
 * and checked when the run ends:
 *
 *   $TMPDIR/cordon-test-XXXXXX/
 *     tmp/          TMPDIR of the run (mode 1777, like /tmp): every temp dir a
 *                   test, a driver or the SDK itself makes goes here
 *     xdg-<uid>/    XDG_RUNTIME_DIR per identity (0700, its own): the SDK keeps
 *                   its bwrap probe cache there instead of the user's
 *
 * Whatever is still in tmp/ when the run ends was left behind by the suite
 * (nothing else writes there), so the check cannot be fooled, or tripped,
 * by other processes using /tmp at the same time. test/.tmp (the escape
 * harness's trees, visible in namespace mode) is checked the same way.
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { testTmp } from './paths.js'
import { removeTree } from './temp.js'

/** The environment that puts a process's temp files into the run's root. */
export interface ScratchEnv {
  TMPDIR: string
  XDG_RUNTIME_DIR: string
}

export interface Scratch {
  root: string
  tmp: string
  /** uid → its environment. */
  env: Record<string, ScratchEnv>
}

/** Make the root (under the caller's TMPDIR) with an environment for each uid. */
export function createScratch(uids: readonly { uid: number; gid: number }[]): Scratch {
  const root = mkdtempSync(join(tmpdir(), 'cordon-test-'))
  chmodSync(root, 0o755)
  const tmp = join(root, 'tmp')
  mkdirSync(tmp)
  chmodSync(tmp, 0o1777)
  const env: Record<string, ScratchEnv> = {}
  for (const { uid, gid } of uids) {
    const xdg = join(root, `xdg-${uid}`)
    mkdirSync(xdg, { mode: 0o700 })
    if (process.getuid?.() !== uid) chownSync(xdg, uid, gid)
    env[uid] = { TMPDIR: tmp, XDG_RUNTIME_DIR: xdg }
  }
  return { root, tmp, env }
}

function entries(dir: string): string[] {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}

/** What test/.tmp holds now (to tell this run's leftovers from what was there before). */
export function testTmpEntries(): Set<string> {
  return new Set(entries(testTmp))
}

/**
 * Remove the root, and test/.tmp's entries made since `before` (then
 * test/.tmp itself when empty). Returns what the suite left behind.
 */
export function finishScratch(scratch: Scratch, before: Set<string>): string[] {
  const left = [
    ...entries(scratch.tmp).map((e) => join(scratch.tmp, e)),
    ...entries(testTmp).filter((e) => !before.has(e)).map((e) => join(testTmp, e)),
  ]
  for (const p of left) removeTree(p)
  removeTree(scratch.root)
  if (entries(testTmp).length === 0) rmSync(testTmp, { recursive: true, force: true })
  return left
}
