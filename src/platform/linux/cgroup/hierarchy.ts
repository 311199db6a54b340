/**
 * Where the caller's own cgroups are (cgroups(7)): parsed from
 * /proc/self/cgroup (which cgroup of each hierarchy this process is in) and
 * /proc/self/mountinfo (where each hierarchy is mounted). Pure functions of
 * the two texts, so that a v2-only host, a hybrid one (this project's CI:
 * v1 controllers, a v2 hierarchy with none) and a container's bind mounts
 * are all unit-tested from fixtures.
 */
import { join } from 'node:path'

/** One line of /proc/self/cgroup: `ID:CONTROLLERS:PATH`. */
export interface ProcCgroupLine {
  id: number
  /** v1 controllers of the hierarchy (`cpu,cpuacct`), empty for v2 (`0::/…`); named hierarchies (`name=systemd`) keep their name. */
  controllers: string[]
  path: string
}

/** A mounted cgroup hierarchy, from /proc/self/mountinfo. */
export interface CgroupMount {
  version: 1 | 2
  /** Where it is mounted. */
  mountPoint: string
  /** Which cgroup of the hierarchy the mount shows at mountPoint (a bind mount of a subtree: not `/`). */
  root: string
  /** v1: the controllers in its mount options; v2: none listed here (cgroup.controllers says). */
  options: string[]
}

/** The caller's cgroup directory in each hierarchy it can reach. */
export interface CallerCgroups {
  /** The unified (v2) hierarchy: the directory of the caller's cgroup there. */
  v2?: string
  /** v1: the directory of the caller's cgroup, by controller (`pids`, `memory`, `cpu`, `freezer`, …). */
  v1: Record<string, string>
}

export function parseProcCgroup(text: string): ProcCgroupLine[] {
  const out: ProcCgroupLine[] = []
  for (const line of text.split('\n')) {
    const m = /^(\d+):([^:]*):(.*)$/.exec(line)
    if (!m) continue
    out.push({ id: Number(m[1]), controllers: m[2] ? m[2].split(',') : [], path: m[3]! })
  }
  return out
}

/** mountinfo escapes space, tab, newline and backslash as \ooo (proc(5)). */
function unescape(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)))
}

/**
 * The cgroup mounts in /proc/self/mountinfo (proc(5)): `ID PARENT MAJ:MIN
 * ROOT MOUNTPOINT OPTIONS [OPTIONAL…] - FSTYPE SOURCE SUPEROPTIONS`.
 */
export function parseCgroupMounts(text: string): CgroupMount[] {
  const out: CgroupMount[] = []
  for (const line of text.split('\n')) {
    const fields = line.split(' ')
    const dash = fields.indexOf('-')
    if (dash < 6 || fields.length < dash + 4) continue
    const fstype = fields[dash + 1]
    if (fstype !== 'cgroup' && fstype !== 'cgroup2') continue
    out.push({
      version: fstype === 'cgroup2' ? 2 : 1,
      mountPoint: unescape(fields[4]!),
      root: unescape(fields[3]!),
      options: fstype === 'cgroup' ? fields[dash + 3]!.split(',') : [],
    })
  }
  return out
}

/**
 * The directory of cgroup `path` under a mount of its hierarchy, or
 * undefined when the mount does not show it (a bind mount of another
 * subtree, or a path outside the caller's cgroup namespace: `/..`).
 */
export function dirUnder(mount: CgroupMount, path: string): string | undefined {
  if (path.includes('/..') || !path.startsWith('/')) return undefined
  if (mount.root === '/') return path === '/' ? mount.mountPoint : join(mount.mountPoint, path)
  if (path === mount.root) return mount.mountPoint
  if (path.startsWith(mount.root + '/')) return join(mount.mountPoint, path.slice(mount.root.length))
  return undefined
}

/** Where the caller's own cgroup of each hierarchy is, for the hierarchies mounted here. */
export function locateCallerCgroups(procCgroup: readonly ProcCgroupLine[], mounts: readonly CgroupMount[]): CallerCgroups {
  const out: CallerCgroups = { v1: {} }
  for (const line of procCgroup) {
    if (line.id === 0 && line.controllers.length === 0) {
      for (const m of mounts.filter((x) => x.version === 2)) {
        const dir = dirUnder(m, line.path)
        if (dir) {
          out.v2 = dir
          break
        }
      }
      continue
    }
    const ctls = line.controllers.filter((c) => !c.startsWith('name='))
    if (ctls.length === 0) continue
    const mount = mounts.find((m) => m.version === 1 && ctls.every((c) => m.options.includes(c)) && dirUnder(m, line.path))
    const dir = mount && dirUnder(mount, line.path)
    if (dir) for (const c of ctls) out.v1[c] = dir
  }
  return out
}

/** The pids listed in a cgroup.procs file. */
export function pidsIn(text: string): number[] {
  return text.split('\n').filter(Boolean).map(Number).filter((n) => Number.isInteger(n) && n > 0)
}
