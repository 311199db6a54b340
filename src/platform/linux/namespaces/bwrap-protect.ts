/**
 * Protected paths as namespace mode mounts them: the profile's list with git
 * resolved.
 *
 * - `.git` is a file in worktrees and submodules (`gitdir: <path>`): the file
 *   itself is protected (so it cannot be re-pointed at a gitdir the sandbox
 *   controls) and `hooks`/`config` are protected where git really reads them
 *   — in the gitdir, or in its common dir for a worktree.
 * - With no repository at launch, git's paths are left alone: `git init`
 *   must work in a fresh workspace, and it writes `.git/config` and copies
 *   hooks templates, which a mask would forbid. The next launch protects the
 *   new repository; the report says so.
 *
 * Every resolved path goes through canonicalize(): a symlink inside a
 * writable root on the way is refused (it may have been planted).
 */
import { closeSync, lstatSync, openSync, readSync, unlinkSync } from 'node:fs'
import { dirname, isAbsolute, join, resolve, sep } from 'node:path'
import { canonicalize, isWithin } from '../../../profile/paths.js'

export interface ProtectedExpansion {
  paths: string[]
  notes: string[]
  /**
   * `commondir` files absent at launch in the protected gitdirs. git reads
   * config and hooks from the directory that file names, so a command that
   * writes one steps around the read-only config and hooks; it cannot be
   * masked (git fails on a `commondir` it cannot read, a directory included),
   * so one the command created is removed after the run (removeCreated).
   */
  removeIfCreated: string[]
}

function readSmall(path: string): string | null {
  let fd: number | undefined
  try {
    fd = openSync(path, 'r')
    const buf = Buffer.alloc(4096)
    return buf.subarray(0, readSync(fd, buf, 0, buf.length, 0)).toString('utf8')
  } catch {
    return null
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

function kind(path: string): 'dir' | 'file' | 'missing' | 'other' {
  try {
    const st = lstatSync(path)
    return st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other'
  } catch {
    return 'missing'
  }
}

/** `/w/.git/hooks` → { git: '/w/.git', rest: 'hooks' }; null when no `.git` component. */
export function splitGitPath(p: string): { git: string; rest: string } | null {
  const parts = p.split(sep)
  const i = parts.indexOf('.git')
  if (i < 0) return null
  return { git: parts.slice(0, i + 1).join(sep) || sep, rest: parts.slice(i + 1).join(sep) }
}

/** The gitdir and common dir a `.git` file points to, canonical (planted symlinks refused). */
function resolveGitFile(gitFile: string, writeRoots: readonly string[]): { gitdir: string; common: string } | null {
  const m = /^gitdir:\s*(.+?)\s*$/m.exec(readSmall(gitFile) ?? '')
  if (!m) return null
  const raw = m[1]!
  const gitdir = canonicalize(isAbsolute(raw) ? resolve(raw) : resolve(dirname(gitFile), raw), writeRoots, `gitdir of ${gitFile}`)
  const commonRaw = readSmall(join(gitdir, 'commondir'))?.trim()
  const common = commonRaw ? canonicalize(isAbsolute(commonRaw) ? resolve(commonRaw) : resolve(gitdir, commonRaw), writeRoots, `commondir of ${gitdir}`) : gitdir
  return { gitdir, common }
}

/** An existing `commondir` is kept read-only; a missing one is watched (see removeIfCreated). */
function guardCommondir(gitdir: string, out: Set<string>, watch: Set<string>): void {
  const file = join(gitdir, 'commondir')
  if (kind(file) === 'missing') watch.add(file)
  else out.add(file)
}

function expandOne(p: string, writeRoots: readonly string[], out: Set<string>, missingRepos: Set<string>, watch: Set<string>): void {
  const split = splitGitPath(p)
  if (!split) return void out.add(p)
  const k = kind(split.git)
  if (k === 'missing') return void missingRepos.add(split.git)
  if (k !== 'file') {
    if (k === 'dir') guardCommondir(split.git, out, watch)
    return void out.add(p)
  }
  out.add(split.git)
  const r = resolveGitFile(split.git, writeRoots)
  if (!r) return
  guardCommondir(r.gitdir, out, watch)
  out.add(split.rest ? join(r.common, split.rest) : r.common)
  if (r.gitdir !== r.common && split.rest === 'config' && kind(join(r.gitdir, 'config.worktree')) === 'file') out.add(join(r.gitdir, 'config.worktree'))
}

export function expandProtected(protectedPaths: readonly string[], writeRoots: readonly string[]): ProtectedExpansion {
  const out = new Set<string>()
  const missingRepos = new Set<string>()
  const watch = new Set<string>()
  for (const p of protectedPaths) expandOne(p, writeRoots, out, missingRepos, watch)
  const notes = [...missingRepos].map(
    (git) => `no git repository at ${dirname(git)} at launch: a repository the command creates there is not protected during this run (the next launch protects its hooks and config); review ${git}/hooks and ${git}/config before using it on the host`,
  )
  // Only where a path of that gitdir is protected inside a write root (elsewhere the command cannot write).
  const removeIfCreated = [...watch].filter((f) => writeRoots.some((r) => isWithin(f, r)))
  if (removeIfCreated.length) notes.push(`a git commondir the command creates (${removeIfCreated.join(', ')}) is removed after the run: git cannot work with it masked, and it would redirect git's config and hooks`)
  return { paths: [...out], notes, removeIfCreated }
}

/**
 * After a run: remove each watched `commondir` the command created, and say
 * so. Only a file or a symlink is unlinked (unlink does not follow the last
 * component), after the directory above it is checked again (no symlink
 * inside a write root on the way: a sandbox still running could have
 * swapped it). Never a recursive removal: a directory can hold links a
 * concurrent sandbox swaps while it is walked by name — and git cannot use
 * a directory `commondir` anyway (it stops with an error), so one is left
 * and reported.
 */
export function removeCreated(files: readonly string[], writeRoots: readonly string[]): string[] {
  const notes: string[] = []
  for (const file of files) {
    const k = kind(file)
    if (k === 'missing') continue
    if (k === 'dir') {
      notes.push(`${file} was created by the command as a directory and is left there: git stops with an error in this repository until it is removed`)
      continue
    }
    try {
      if (canonicalize(dirname(file), writeRoots, 'gitdir') !== dirname(file)) throw new Error('the directory above it changed')
      unlinkSync(file)
      notes.push(`removed ${file}, which the command created: git would read config and hooks from the directory it names`)
    } catch (err) {
      notes.push(`could not remove ${file}, which the command created (git would read config and hooks from the directory it names): ${(err as Error).message}`)
    }
  }
  return notes
}
