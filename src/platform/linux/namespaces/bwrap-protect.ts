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
 * - Nested repositories (issue 13 §7): every other `.git` (directory or
 *   file) below the write roots — submodules, vendored checkouts, a `sub/`
 *   repository — is a repository whose config and hooks git runs, so what
 *   the profile protects of the workspace's `.git` (`hooks`, `config`) is
 *   protected in each of them too, the gitfile included (re-pointing a
 *   submodule's `.git` file at a gitdir the command controls would step
 *   around its protected config). They are found by a bounded walk that
 *   never follows a symlink (profile/git-repos.ts). Each costs binds, and a
 *   launch passes at most MAX_BIND_SOURCES descriptors: repositories are
 *   added shallowest first while the real bind plan fits, and those that do
 *   not fit — or cannot be protected (a gitdir through a planted symlink, a
 *   hard-linked hook) — are reported missing (`nested-repositories`) rather
 *   than refusing the launch. A repository the command creates during a run
 *   is not protected in that run; the orchestrator never runs one with wider
 *   rights unasked (orchestrator/escalation/planted-repos.ts).
 *
 * Every resolved path goes through canonicalize(): a symlink inside a
 * writable root on the way is refused (it may have been planted).
 */
import { closeSync, lstatSync, openSync, readdirSync, readSync, unlinkSync } from 'node:fs'
import { dirname, isAbsolute, join, resolve, sep } from 'node:path'
import { canonicalize, isWithin } from '../../../profile/paths.js'
import { findRepositories } from '../../../profile/git-repos.js'
import type { MissingProtection } from '../../enforcement.js'
import { WIRE } from '../launch/wire.js'
import { fdSources } from './bwrap-args.js'
import type { MountPlan } from './bwrap-mounts.js'

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

/**
 * Descriptors a launch can pass for binds: the request's limit less the
 * five every launch has (stdin, stdout, stderr, plan, status).
 */
export const MAX_BIND_SOURCES = WIRE.fd.maxPerRequest - 5

interface NestedRepo {
  git: string
  paths: string[]
  removeIfCreated: string[]
}

/** A file or a hooks entry with another name (a hard link): the launch would refuse it, so the repository is left out. */
function hardLinked(paths: readonly string[]): string | undefined {
  for (const p of paths) {
    try {
      const st = lstatSync(p)
      if (st.isFile() && st.nlink > 1) return p
      if (!st.isDirectory()) continue
      const entries = readdirSync(p, { withFileTypes: true })
      if (entries.length > 256) return p // more than a hooks directory holds: not scanned at every launch
      for (const e of entries) {
        if (e.isDirectory()) return join(p, e.name) // hooks directories are flat; a subdirectory is not checked
        if (e.isFile() && lstatSync(join(p, e.name)).nlink > 1) return join(p, e.name)
      }
    } catch {
      /* missing: a placeholder, nothing to link */
    }
  }
  return undefined
}

/** The protection of each nested repository (what the profile protects of `.git`, applied to it); what could not be, with why. */
function nestedRepos(protectedPaths: readonly string[], writeRoots: readonly string[]): { repos: NestedRepo[]; skipped: string[]; complete: boolean } {
  const splits = protectedPaths.map(splitGitPath).filter((x): x is { git: string; rest: string } => x !== null)
  const rests = [...new Set(splits.map((x) => x.rest))]
  if (rests.length === 0) return { repos: [], skipped: [], complete: true }
  const known = new Set(splits.map((x) => x.git))
  // Only the write roots that hold a repository the profile protects (the workspace): a private temp dir is not walked.
  const found = findRepositories(writeRoots.filter((r) => splits.some((x) => isWithin(x.git, r))), [...known])
  const repos: NestedRepo[] = []
  const skipped: string[] = []
  for (const git of found.gits) {
    const out = new Set<string>()
    const watch = new Set<string>()
    try {
      for (const rest of rests) expandOne(rest ? join(git, rest) : git, writeRoots, out, new Set(), watch)
    } catch (err) {
      skipped.push(`${git}: ${(err as Error).message}`)
      continue
    }
    const linked = hardLinked([...out])
    if (linked) {
      skipped.push(`${git}: ${linked} has another name (a hard link) or is not a plain hooks directory`)
      continue
    }
    repos.push({ git, paths: [...out], removeIfCreated: [...watch].filter((f) => writeRoots.some((r) => isWithin(f, r))) })
  }
  return { repos, skipped, complete: found.complete }
}

export interface ProtectedPlan {
  expansion: ProtectedExpansion
  mounts: MountPlan
  /** Nested repositories left unprotected (over the descriptor budget, or unprotectable). */
  missing: MissingProtection[]
}

/** Directories strictly between the write root holding `p` and `p`: the pins a bind of `p` may need. */
function pinsFor(p: string, writeRoots: readonly string[]): string[] {
  const root = writeRoots.filter((r) => isWithin(p, r)).sort((a, b) => b.length - a.length)[0]
  if (root === undefined || root === p) return []
  const out: string[] = []
  for (let d = dirname(p); d !== root && isWithin(d, root); d = dirname(d)) out.push(d)
  return out
}

/**
 * The protected paths and the mount plan together: the profile's own
 * paths always, then nested repositories shallowest first while the bind
 * sources fit MAX_BIND_SOURCES. Each repository is counted at most what it
 * can add — its paths, and the pins above them that no earlier bind
 * already needs — so the plan is made twice (without and with them), not
 * once per repository; should the real plan still not fit, repositories
 * are dropped from the end until it does.
 */
export function protectAndPlan(protectedPaths: readonly string[], writeRoots: readonly string[], plan: (paths: string[]) => MountPlan): ProtectedPlan {
  const expansion = expandProtected(protectedPaths, writeRoots)
  const nested = nestedRepos(protectedPaths, writeRoots)
  const withFirst = (k: number) => [...expansion.paths, ...nested.repos.slice(0, k).flatMap((r) => r.paths)]
  const sources = (m: MountPlan) => fdSources(m.ops).length
  let mounts = plan(expansion.paths)
  let n = 0
  if (nested.repos.length > 0) {
    const counted = new Set(expansion.paths.flatMap((p) => pinsFor(p, writeRoots)))
    let used = sources(mounts)
    for (const repo of nested.repos) {
      const pins = new Set(repo.paths.flatMap((p) => pinsFor(p, writeRoots)).filter((d) => !counted.has(d)))
      const cost = repo.paths.length + pins.size
      if (used + cost > MAX_BIND_SOURCES) break
      used += cost
      for (const d of pins) counted.add(d)
      n++
    }
    if (n > 0) mounts = plan(withFirst(n))
    while (n > 0 && sources(mounts) > MAX_BIND_SOURCES) mounts = plan(withFirst(--n))
  }
  const kept = nested.repos.slice(0, n)
  const left = [...nested.repos.slice(n).map((r) => `${r.git}: over the ${MAX_BIND_SOURCES} binds a launch can pass`), ...nested.skipped]
  expansion.paths = withFirst(n)
  expansion.removeIfCreated = [...expansion.removeIfCreated, ...kept.flatMap((r) => r.removeIfCreated)]
  if (kept.length) expansion.notes.push(`nested git repositories protected like the workspace's (their hooks and config read-only): ${kept.map((r) => r.git).join(', ')}`)
  if (!nested.complete) expansion.notes.push('nested git repositories were looked for in the first levels of the write roots only (a bounded walk): deeper ones are not protected')
  const missing: MissingProtection[] = left.length
    ? [{ protection: 'nested-repositories', explicit: false, reason: `git repositories in the write roots whose hooks and config stay writable: ${left.join('; ')}`, fix: 'keep fewer repositories inside the write roots (or outside them), and remove hard links and symlinks from their .git' }]
    : []
  return { expansion, mounts, missing }
}
