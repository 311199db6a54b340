/**
 * Git repositories a sandboxed command could have written (issue 13 §7).
 * git runs code named by a repository's own files — `core.fsmonitor`,
 * `core.pager`, aliases, filters and hooks in `.git/config` and
 * `.git/hooks`, a `.git` *file* pointing at another gitdir — so a sandboxed
 * command that writes `sub/.git` makes the next `git status` in `sub` run
 * its code, with whatever rights that run has.
 *
 * Before an attempt with more rights than the profile, the orchestrator
 * looks for the repositories that attempt's git would read:
 *
 * - the repository of each directory it runs in (the cwd, the targets of
 *   `cd` in a script, `git -C`): the first `.git` walking up, as git finds
 *   it, and `GIT_DIR` if the request sets it;
 * - every repository below those directories (submodules, nested
 *   repositories a script could `cd` into), by a bounded walk that never
 *   follows a symlink — a walk cut short counts as "could not rule out".
 *
 * A repository is one the sandbox could have written when its `.git`
 * entry, or the gitdir a `.git` file names, lies inside a write root of
 * the profile. That holds in both modes: namespace mode keeps an existing
 * repository's config and hooks read-only, but a sandboxed command can
 * have created the repository itself (`git init`), in this session or an
 * earlier one, and Landlock mode cannot keep anything inside a write root
 * read-only at all.
 */
import { closeSync, lstatSync, openSync, readdirSync, readSync } from 'node:fs'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { isUnder } from '../denial/path-rules.js'
import { quote } from '../text.js'

export interface PlantedRepos {
  /** The `.git` entries (or gitdirs) inside a write root that the attempt's git could read. */
  readonly repos: readonly string[]
  /** True when the walk below a directory stopped at its bound: more may exist. */
  readonly incomplete: boolean
}

/** Directory entries looked at below each directory, and how deep. */
const WALK_ENTRIES = 20_000
const WALK_DEPTH = 12
/** Repositories listed (the first ones found decide; more add nothing). */
const MAX_LISTED = 16

function kind(p: string): 'dir' | 'file' | 'other' | 'missing' {
  try {
    const st = lstatSync(p)
    return st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other'
  } catch {
    return 'missing'
  }
}

/** The gitdir a `.git` file names (not followed further: only where it points matters). */
function gitdirOf(gitFile: string): string | undefined {
  let fd: number | undefined
  try {
    fd = openSync(gitFile, 'r')
    const buf = Buffer.alloc(4096)
    const text = buf.subarray(0, readSync(fd, buf, 0, buf.length, 0)).toString('utf8')
    const m = /^gitdir:\s*(.+?)\s*$/m.exec(text)
    return m?.[1] ? (isAbsolute(m[1]) ? resolve(m[1]) : resolve(dirname(gitFile), m[1])) : undefined
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/** Whether the repository at this `.git` entry is one a sandboxed command could have written. */
function writable(git: string, writeRoots: readonly string[]): boolean {
  const inRoot = (p: string) => writeRoots.some((r) => isUnder(p, r))
  if (inRoot(git)) return true
  if (kind(git) !== 'file') return false
  const gitdir = gitdirOf(git)
  return gitdir !== undefined && inRoot(gitdir)
}

/** The `.git` entry git finds for `dir` (walking up), if any. */
function governing(dir: string): string | undefined {
  for (let d = resolve(dir); ; d = dirname(d)) {
    const git = join(d, '.git')
    const k = kind(git)
    if (k === 'dir' || k === 'file') return git
    if (dirname(d) === d) return undefined
  }
}

/** `.git` entries below `dir`, breadth first, within write roots only; `cut` when the bound was reached. */
function below(dir: string, writeRoots: readonly string[], found: Set<string>): boolean {
  let budget = WALK_ENTRIES
  let level = [resolve(dir)]
  for (let depth = 0; level.length > 0 && depth <= WALK_DEPTH; depth++) {
    const next: string[] = []
    for (const d of level) {
      let entries
      try {
        entries = readdirSync(d, { withFileTypes: true })
      } catch {
        continue // unreadable: git cannot read it either
      }
      for (const e of entries) {
        if (--budget < 0) return true
        const p = join(d, e.name)
        if (e.name === '.git' && (e.isDirectory() || e.isFile())) {
          if (writable(p, writeRoots)) found.add(p)
        } else if (e.isDirectory() && writeRoots.some((r) => isUnder(p, r) || isUnder(r, p))) next.push(p)
      }
      if (found.size >= MAX_LISTED) return false
    }
    level = next
  }
  return level.length > 0
}

export interface PlantedInput {
  /** Directories the attempt runs git in: its cwd and any it changes to. */
  readonly dirs: readonly string[]
  /** The profile's write roots (the base sandbox's report). */
  readonly writeRoots: readonly string[]
  /** Environment additions of the request (GIT_DIR, GIT_WORK_TREE point git elsewhere). */
  readonly env?: Readonly<Record<string, string>> | undefined
}

export function plantedRepos(input: PlantedInput): PlantedRepos {
  const found = new Set<string>()
  let incomplete = false
  const gitDir = input.env?.GIT_DIR
  if (gitDir !== undefined) {
    const p = resolve(input.dirs[0] ?? '/', gitDir)
    if (input.writeRoots.some((r) => isUnder(p, r))) found.add(p)
  }
  for (const dir of input.dirs) {
    const git = governing(dir)
    if (git !== undefined && writable(git, input.writeRoots)) found.add(git)
    if (found.size < MAX_LISTED) incomplete = below(dir, input.writeRoots, found) || incomplete
  }
  return { repos: [...found].slice(0, MAX_LISTED), incomplete }
}

/**
 * The directories a decided command runs in: the cwd, then every `cd DIR`
 * (relative to the one before) and `git -C DIR` of its plain commands.
 */
export function runDirs(cwd: string, segments: readonly (readonly string[])[]): string[] {
  const dirs = [cwd]
  let at = cwd
  for (const argv of segments) {
    if ((argv[0] === 'cd' || argv[0] === 'pushd') && argv[1] !== undefined && argv[1] !== '-') {
      at = resolve(at, argv[1])
      dirs.push(at)
    }
    const c = argv[0] === 'git' ? argv.indexOf('-C') : -1
    if (c > 0 && argv[c + 1] !== undefined) dirs.push(resolve(at, argv[c + 1] as string))
  }
  return [...new Set(dirs)]
}

/** The risk lines of an approval request, or none. */
export function riskLines(p: PlantedRepos): string[] {
  const lines = p.repos.map((r) => `git repository ${quote(r)} lies in a write root: a sandboxed command could have written its config and hooks, which git runs with this attempt's rights`)
  if (p.incomplete) lines.push('the directories this attempt runs in hold more than cordon looked through: repositories a sandboxed command wrote further down cannot be ruled out')
  return lines
}
