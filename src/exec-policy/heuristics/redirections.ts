/**
 * Where a command's redirections write (issue 11). A write to `/dev/null`
 * or an fd duplication (`2>&1`, `>&2`, `3>&-`) changes nothing on disk; a
 * write into a writable root of the sandbox (the workspace) is no wider than
 * what the sandbox lets the command do anyway; anything else — a path
 * outside every writable root, a protected path inside one (`.git/hooks`,
 * `.bashrc`, a rules file), a relative path after a `cd` in the same script,
 * a dangling symlink, bash's `/dev/tcp` and `/dev/udp`, or any file when
 * the decision was not told the workspace — must be asked: with
 * `allowMeansNoSandbox`, an allowed command runs outside the sandbox, and
 * `cat x > /home/u/.bashrc` is then a lasting change.
 *
 * Paths are judged after symlinks (a link planted in the workspace that
 * points at `~/.bashrc` is outside), as they are when the decision is made;
 * a command running at the same time could still swap a link before the
 * shell opens the file: then the write happens in whatever sandbox the
 * command runs in.
 */
import { lstatSync, realpathSync } from 'node:fs'
import { basename, dirname, isAbsolute, resolve } from 'node:path'
import { z } from 'zod'
import { PolicyError } from '../../errors.js'
import { isWithin } from '../../profile/paths.js'
import type { Redirect } from '../shell/script-reader.js'

/**
 * What the decision knows about where the command runs: its cwd, the
 * profile's write roots and, if known, its protected paths (the built-in
 * names below are always protected).
 */
export const WorkspaceSchema = z.object({
  cwd: z.string().min(1),
  writableRoots: z.array(z.string().min(1)).readonly(),
  protectedPaths: z.array(z.string().min(1)).readonly().optional(),
})
export type Workspace = z.infer<typeof WorkspaceSchema>

export type WriteVerdict =
  | { readonly kind: 'none' }
  /** Writes only inside writable roots: the command is not read-only. */
  | { readonly kind: 'workspace'; readonly targets: readonly string[] }
  /** Writes somewhere it must be asked about. */
  | { readonly kind: 'outside'; readonly reason: string }

/** Sinks that write nothing to a file. */
const SINKS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/fd/1', '/dev/fd/2'])
const WRITES = new Set(['>', '>>', '>|', '<>'])
/** Directory names whose contents run code or hold policy (the workspace-write profile protects them too). */
const PROTECTED_DIRS = new Set(['.git', '.cordon', '.codex', '.vscode', '.idea', '.github'])
/** Shell start-up files: appending to one runs code in every later shell. */
const PROTECTED_FILES = new Set(['.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.profile', '.zshrc', '.zprofile', '.zshenv', '.zlogin', '.inputrc', '.envrc'])

/** Canonical roots, computed once per decision. */
export interface PreparedWorkspace {
  readonly cwd: string
  readonly roots: readonly string[]
  readonly protectedPaths: readonly string[]
}

export function prepareWorkspace(options: Workspace): PreparedWorkspace {
  const parsed = WorkspaceSchema.safeParse(options)
  if (!parsed.success) throw new PolicyError(`invalid workspace options: ${parsed.error.message}`, { where: 'decide options: workspace' })
  const ws = parsed.data
  const cwd = resolve(ws.cwd)
  const canon = (p: string): string => canonical(resolve(cwd, p)) ?? resolve(cwd, p)
  return { cwd, roots: ws.writableRoots.map(canon), protectedPaths: (ws.protectedPaths ?? []).map(canon) }
}

/** `workspace` is asked for only when a redirection writes a file (preparing it touches the file system). */
export function writeVerdict(redirects: readonly Redirect[], cwdUnknown: boolean, workspace: () => PreparedWorkspace | undefined): WriteVerdict {
  const targets: string[] = []
  for (const r of redirects) {
    if (r.op === '<&' || r.op === '>&') continue
    if (r.target.startsWith('/dev/tcp/') || r.target.startsWith('/dev/udp/')) return { kind: 'outside', reason: `redirection to ${r.target}: bash opens a network connection` }
    if (!WRITES.has(r.op) || SINKS.has(r.target)) continue
    const why = outsideReason(r.target, cwdUnknown, workspace())
    if (why) return { kind: 'outside', reason: `redirection ${r.op} ${r.target} writes ${why}` }
    targets.push(r.target)
  }
  return targets.length === 0 ? { kind: 'none' } : { kind: 'workspace', targets }
}

function outsideReason(target: string, cwdUnknown: boolean, ws: PreparedWorkspace | undefined): string | undefined {
  if (!ws) return 'a file, and cordon was not told the workspace (cwd and writable roots)'
  if (!isAbsolute(target) && cwdUnknown) return 'relative to a directory that a cd earlier in the script chose'
  const path = canonical(resolve(ws.cwd, target))
  if (path === undefined) return 'through a dangling symlink'
  const root = ws.roots.find((r) => isWithin(path, r))
  if (!root) return `outside the writable roots (${path})`
  const prot = ws.protectedPaths.find((p) => isWithin(path, p))
  if (prot) return `into the protected path ${prot}`
  const parts = path.slice(root.length).split('/')
  const named = parts.find((part) => PROTECTED_DIRS.has(part))
  if (named) return `into ${named}/ (${path})`
  const file = basename(path)
  if (PROTECTED_FILES.has(file) || file.endsWith('.rules')) return `a shell start-up or rules file (${path})`
  return undefined
}

/** The path with every symlink resolved, the missing tail kept as given; undefined for a dangling symlink. */
function canonical(path: string): string | undefined {
  // Most targets do not exist yet: ask without an exception (V8 makes a thrown one cost more than the stat).
  if (!lstatSync(path, { throwIfNoEntry: false })) {
    const parent = dirname(path)
    if (parent === path) return path
    const dir = canonical(parent)
    return dir === undefined ? undefined : resolve(dir, basename(path))
  }
  try {
    return realpathSync(path)
  } catch {
    return undefined // it exists but does not resolve: a dangling or looping link
  }
}
