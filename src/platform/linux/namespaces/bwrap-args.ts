/**
 * bwrap's command line for one launch. bwrap applies its options in order,
 * so the mount plan's order (bwrap-mounts.ts) is kept: later mounts cover
 * earlier ones.
 *
 * Choices, each for a reason:
 * - `--as-pid-1`: the launcher becomes pid 1 of the new pid namespace, its
 *   parent (bwrap, outside) is invisible, and when it exits the kernel kills
 *   everything left in the namespace — double-forked, setsid'd daemons too.
 *   (Without it bwrap's own reaper would be the launcher's parent, which the
 *   launcher's parent-death check rejects as "already orphaned".)
 * - no `--new-session`: the launcher calls setsid() itself (its first step);
 *   bwrap's would make that call fail with EPERM. The effect — no controlling
 *   terminal to inject keystrokes into — is the same.
 * - `--clearenv`: bwrap and the launcher get no environment; the command's
 *   environment travels in the plan on fd 3, never in argv where `ps` shows it.
 * - fds 3 (plan) and 4 (status) pass through: bwrap leaves inherited
 *   descriptors open, and the launcher closes everything else itself.
 * - the launcher is bound read-only at its own path after every mount when
 *   one of them would hide it (a private /tmp, /dev, /proc, a mask over its
 *   directory). Elsewhere `--ro-bind / /` already shows it, read-only, and
 *   the bind would only cost time: bwrap 0.8 re-reads /proc/self/mountinfo
 *   for every bind and remount (≈ 0.15 ms each, the bulk of a launch's
 *   mount setup).
 * - denied files are covered by /dev/null bound *without* device access
 *   (bwrap binds nodev), so open() fails with EACCES, as under Landlock.
 * - binds of the host's own files — the write roots, pins, protected paths,
 *   a read-only cwd — are given to bwrap as descriptors (`--bind-fd`/
 *   `--ro-bind-fd`, fds 5, 6, … in `fdSources` order), opened by cordon
 *   without following symlinks: a sandbox still running can swap such a
 *   path for a symlink between cordon's checks and bwrap's mount, and bwrap,
 *   given the path, would follow it (red team: a `.git` swapped for
 *   `~/.ssh` was mounted read-write in the next sandbox; a write root nested
 *   in another sandbox's workspace, likewise). Only fixed sources stay paths
 *   (`/`, /dev/null).
 */
import type { BwrapFeatures } from './bwrap-probe.js'
import { namespaceFlags } from './bwrap-probe.js'
import type { MountOp } from './bwrap-mounts.js'
import { isWithin } from '../../../profile/paths.js'
import { LAUNCHER_ARGS } from '../launch/launch.js'

/** The first descriptor number of the bind sources (after stdin, stdout, stderr, plan, status). */
export const FIRST_SOURCE_FD = 5

/** The binds of a plan whose sources must be opened by cordon and passed by descriptor, in fd order: all of them. */
export function fdSources(ops: readonly MountOp[]): string[] {
  return ops.filter((o) => o.kind === 'bind' || o.kind === 'ro-bind').map((o) => o.path)
}

function opArgs(op: MountOp, sources: readonly string[]): string[] {
  const p = op.path
  const fd = op.kind === 'bind' || op.kind === 'ro-bind' ? sources.indexOf(p) : -1
  switch (op.kind) {
    case 'tmpfs':
      return ['--tmpfs', p]
    case 'bind':
      return fd >= 0 ? ['--bind-fd', String(FIRST_SOURCE_FD + fd), p] : ['--bind', p, p]
    case 'ro-bind':
      return fd >= 0 ? ['--ro-bind-fd', String(FIRST_SOURCE_FD + fd), p] : ['--ro-bind', p, p]
    case 'ro-placeholder':
    case 'mask':
      return ['--perms', '0555', '--tmpfs', p, '--remount-ro', p]
    case 'deny-dir':
      return ['--perms', '0000', '--tmpfs', p, '--remount-ro', p]
    case 'deny-file':
      return ['--ro-bind', '/dev/null', p]
  }
}

/** True when a mount of the plan (or bwrap's own /dev and /proc) covers `path`. */
function covered(path: string, ops: readonly MountOp[]): boolean {
  return ['/dev', '/proc', ...ops.map((o) => o.path)].some((p) => isWithin(path, p))
}

export interface BwrapArgsInput {
  features: BwrapFeatures
  networkOff: boolean
  ops: readonly MountOp[]
  launcher: string
  /** Network allowlist: the proxy's unix socket, bound read-only at the same path (connect(2) needs no write on the mount). */
  proxySocket?: string | undefined
  /** fdSources(ops, writeRoots): these binds use descriptors instead of paths. */
  sources?: readonly string[]
}

export function bwrapArgs(input: BwrapArgsInput): string[] {
  return [
    ...namespaceFlags(input.features, input.networkOff),
    '--ro-bind', '/', '/',
    '--dev', '/dev',
    '--proc', '/proc',
    ...input.ops.flatMap((op) => opArgs(op, input.sources ?? [])),
    // After the mounts: the socket's directory may lie under a private /tmp.
    ...(input.proxySocket ? ['--ro-bind', input.proxySocket, input.proxySocket] : []),
    // The launcher must be reachable whatever the mounts above hide (it may
    // live under a private /tmp or a masked tree): bind it, read-only, last.
    ...(covered(input.launcher, input.ops) ? ['--ro-bind', input.launcher, input.launcher] : []),
    '--',
    input.launcher,
    ...LAUNCHER_ARGS,
  ]
}
