/**
 * Resolving a bare program name through PATH, refusing any resolution the
 * confined command could have influenced. An approval for `git` means the
 * git the user knows; if PATH lets the agent put its own `git` first — a
 * relative or empty entry (searched in the working directory) or a
 * directory inside a writable root — the name cannot be trusted, even if
 * today's lookup happens to land on /usr/bin/git.
 */
import { accessSync, constants, realpathSync, statSync } from 'node:fs'
import { delimiter, isAbsolute, join, resolve } from 'node:path'
import { z } from 'zod'
import { PolicyError } from '../../errors.js'
import { isWithin } from '../../profile/paths.js'

export const ResolveOptionsSchema = z.object({
  PATH: z.string(),
  cwd: z.string().min(1),
  writableRoots: z.array(z.string().min(1)).readonly(),
})
export type ResolveOptions = z.infer<typeof ResolveOptionsSchema>

export type ResolvedProgram = { readonly ok: true; readonly path: string } | { readonly ok: false; readonly reason: string }

export function resolveProgram(name: string, options: ResolveOptions): ResolvedProgram {
  return resolveWith(name, prepareResolve(options))
}

/** Validated options, writable roots canonical: what every lookup of one decision shares. */
export interface PreparedResolve {
  readonly PATH: string
  readonly roots: readonly string[]
  /** PATH entry → the writable root it lies in ('' for none), filled as entries are met. */
  readonly entryRoots: Map<string, string>
}

export function prepareResolve(options: ResolveOptions): PreparedResolve {
  const parsed = ResolveOptionsSchema.safeParse(options)
  if (!parsed.success) throw new PolicyError(`invalid resolveProgram options: ${parsed.error.message}`, { where: 'resolveProgram' })
  const { PATH, cwd } = parsed.data
  return { PATH, roots: parsed.data.writableRoots.map((r) => canonical(resolve(cwd, r))), entryRoots: new Map() }
}

export function resolveWith(name: string, { PATH, roots, entryRoots }: PreparedResolve): ResolvedProgram {
  if (name === '' || name.includes('\0')) return { ok: false, reason: 'empty or invalid program name' }
  if (name.includes('/')) return resolvePath(name, roots)
  for (const entry of PATH.split(delimiter)) {
    if (entry === '' || !isAbsolute(entry)) {
      return { ok: false, reason: `PATH entry ${JSON.stringify(entry)} is relative: it is searched in the working directory` }
    }
    let inRoot = entryRoots.get(entry)
    if (inRoot === undefined) entryRoots.set(entry, (inRoot = writableRootOf(canonical(entry), roots) ?? ''))
    if (inRoot) return { ok: false, reason: `PATH entry ${entry} is inside writable root ${inRoot}` }
    const candidate = join(entry, name)
    if (isExecutableFile(candidate)) return checkTarget(candidate, roots)
  }
  return { ok: false, reason: `${name} not found in PATH` }
}

function resolvePath(name: string, roots: readonly string[]): ResolvedProgram {
  if (!isAbsolute(name)) return { ok: false, reason: `${name} is a relative path: it names whatever file is there` }
  if (!isExecutableFile(name)) return { ok: false, reason: `${name} is not an executable file` }
  return checkTarget(name, roots)
}

/** The file itself (after symlinks) must not live where the command can write. */
function checkTarget(path: string, roots: readonly string[]): ResolvedProgram {
  const inRoot = writableRootOf(canonical(path), roots)
  if (inRoot) return { ok: false, reason: `${path} resolves inside writable root ${inRoot}` }
  return { ok: true, path }
}

function writableRootOf(path: string, roots: readonly string[]): string | undefined {
  return roots.find((root) => isWithin(path, root))
}

/** Real path when it exists (so a symlinked directory is judged by its target), else as given. */
function canonical(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return resolve(path)
  }
}

function isExecutableFile(path: string): boolean {
  try {
    // Most candidates do not exist: no exception for that, which costs more than the stat.
    if (!statSync(path, { throwIfNoEntry: false })?.isFile()) return false
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}
