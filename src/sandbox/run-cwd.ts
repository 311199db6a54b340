/**
 * A run's own working directory (`run(argv, { cwd })`): where the command
 * starts, and nothing more. The profile was resolved against the sandbox's
 * cwd (`${cwd}`, relative paths, the write roots) and stays so: a run cwd
 * never widens what the sandbox allows.
 *
 * It is canonicalised as the profile's paths are (src/profile/paths.ts): a
 * symlink on the way that lies inside a write root may have been planted by
 * an earlier sandboxed command, and is refused. It must be an existing
 * directory the command can read — inside the readable tree, outside every
 * denied path, and not hidden behind a private directory (namespace mode
 * shows /tmp empty except for the write roots and the sandbox cwd) — so a
 * bad one is a PolicyError before anything runs, not a failed chdir in the
 * launcher.
 *
 * Between this check and the launcher's chdir a command still running in
 * the same sandbox could swap a directory inside a write root for a
 * symlink; the chdir then lands elsewhere, but the confinement does not
 * move with it (Landlock and the namespace mounts are the plan's, checked
 * on every access), exactly as for the sandbox cwd itself.
 */
import { statSync } from 'node:fs'
import { resolve } from 'node:path'
import { PolicyError } from '../errors.js'
import type { Enforcement } from '../platform/enforcement.js'
import { canonicalize, isWithin, type CanonCache } from '../profile/paths.js'
import type { ResolvedPolicy } from '../profile/resolve.js'

const WHERE = 'run options: cwd'

export interface RunCwdContext {
  policy: ResolvedPolicy
  /** What the launch enforces (planned): its read roots, denied paths and private directories. */
  enforcement: Enforcement
  cache?: CanonCache
}

/** The canonical directory a run starts in; PolicyError when it is missing or outside what the sandbox can read. */
export function checkRunCwd(raw: string, ctx: RunCwdContext): string {
  const cwd = canonicalize(resolve(ctx.policy.cwd, raw), ctx.policy.writeRoots, 'cwd', ctx.cache)
  const refuse = (why: string) => new PolicyError(`${cwd} ${why}; nothing was run`, { where: WHERE })
  let st
  try {
    st = statSync(cwd, { throwIfNoEntry: false })
  } catch (e) {
    throw refuse(`cannot be examined (${(e as NodeJS.ErrnoException).code ?? e})`)
  }
  if (!st) throw refuse('does not exist')
  if (!st.isDirectory()) throw refuse('is not a directory')
  const fs = ctx.enforcement.filesystem
  if (!fs.readAll && !fs.readRoots.some((r) => isWithin(cwd, r))) throw refuse(`is outside the sandbox's readable tree (${fs.readRoots.join(', ')})`)
  const denied = fs.denyRead.find((d) => isWithin(cwd, d))
  if (denied !== undefined) throw refuse(`lies in ${denied}, which the sandbox denies reading`)
  const hidden = fs.privateDirs.find((d) => isWithin(cwd, d))
  const visible = isWithin(cwd, ctx.policy.cwd) || fs.writeRoots.some((w) => isWithin(cwd, w))
  if (hidden !== undefined && !visible) throw refuse(`lies in ${hidden}, which the command sees as a private, empty directory (only the write roots and the sandbox cwd show through)`)
  return cwd
}
