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
 */
import type { BwrapFeatures } from './bwrap-probe.js'
import { namespaceFlags } from './bwrap-probe.js'
import type { MountOp } from './bwrap-mounts.js'
import { isWithin } from '../../policy/paths.js'
import { LAUNCHER_ARGS } from './launch.js'

function opArgs(op: MountOp): string[] {
  const p = op.path
  switch (op.kind) {
    case 'tmpfs':
      return ['--tmpfs', p]
    case 'bind':
      return ['--bind', p, p]
    case 'ro-bind':
      return ['--ro-bind', p, p]
    case 'ro-placeholder':
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
}

export function bwrapArgs(input: BwrapArgsInput): string[] {
  return [
    ...namespaceFlags(input.features, input.networkOff),
    '--ro-bind', '/', '/',
    '--dev', '/dev',
    '--proc', '/proc',
    ...input.ops.flatMap(opArgs),
    // The launcher must be reachable whatever the mounts above hide (it may
    // live under a private /tmp or a masked tree): bind it, read-only, last.
    ...(covered(input.launcher, input.ops) ? ['--ro-bind', input.launcher, input.launcher] : []),
    '--',
    input.launcher,
    ...LAUNCHER_ARGS,
  ]
}
