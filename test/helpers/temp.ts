/**
 * Temp dirs a test file makes under os.tmpdir() (the run's own temp root,
 * see scratch.ts), all removed by
 * `removeTempDirs`, which the file calls from afterAll. Read-only dirs a
 * test made are made writable first.
 */
import { chmodSync, lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const made: string[] = []

/** A fresh directory `<tmpdir>/<prefix>XXXXXX` (mode 0700), removed by removeTempDirs(). */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  made.push(dir)
  return dir
}

/** Remove every directory tempDir() made in this test file (call from afterAll). */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) removeTree(dir)
}

/** u+rwx on `dir` and every directory below it (a test may leave one read-only), without following symlinks. */
function ownerWritable(dir: string): void {
  try {
    if (!lstatSync(dir).isDirectory()) return
    chmodSync(dir, 0o700)
    for (const e of readdirSync(dir)) ownerWritable(join(dir, e))
  } catch {
    /* gone, or not ours */
  }
}

/** Remove a tree, making read-only directories in it writable first if a plain removal fails. */
export function removeTree(path: string): void {
  try {
    rmSync(path, { recursive: true, force: true })
  } catch {
    ownerWritable(path)
    rmSync(path, { recursive: true, force: true })
  }
}
