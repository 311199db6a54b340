/**
 * Can this caller give each run a cgroup of its own, and with which limits?
 * Read once per process (and identity) from /proc/self/cgroup,
 * /proc/self/mountinfo and the caller's cgroup directories; nothing is
 * created here. The caller needs write access to its own cgroup in a
 * hierarchy — root, or a cgroup delegated to its user (systemd's
 * `Delegate=yes`) — for the run's cgroups to go below it.
 */
import { accessSync, constants as fsc, openSync, readFileSync, readSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { locateCallerCgroups, parseCgroupMounts, parseProcCgroup, type CallerCgroups } from './hierarchy.js'
import type { CgroupController, HostCgroups } from './cgroup-plan.js'
import { CALLER_LEAF } from './cgroup-fs.js'

/** How to give an unprivileged caller a cgroup it may divide. */
export const DELEGATE_FIX = 'run as root, or start the caller in a delegated cgroup v2 subtree: systemd-run --user --scope -p Delegate=yes -- <command> (or Delegate=yes in its service unit)'

export type CgroupHostProbe =
  | { ok: true; host: HostCgroups; version: 'v1' | 'v2' | 'hybrid'; controllers: CgroupController[]; notes: string[] }
  | { ok: false; reason: string; fix: string }

const read = (path: string): string => {
  try {
    return readFileSync(path, 'latin1')
  } catch {
    return ''
  }
}

function writable(dir: string): boolean {
  try {
    accessSync(dir, fsc.W_OK)
    accessSync(join(dir, 'cgroup.procs'), fsc.W_OK)
    return true
  } catch {
    return false
  }
}

/**
 * The caller's v2 cgroup as the parent of the runs' cgroups: after a
 * `vacate` this process lives in `<cgroup>/cordon-caller`, and the runs'
 * cgroups stay siblings of that leaf (never ever deeper below it).
 */
function v2Parent(dir: string): string {
  return basename(dir) === CALLER_LEAF ? dirname(dir) : dir
}

/** The v1 controllers a run's cgroup may use: its limits, and the freezer for its end. */
const USED_V1 = ['pids', 'memory', 'cpu', 'freezer']

/** Only the hierarchies (of those a run may use) whose caller cgroup this process may write in. */
export function writableCgroups(all: CallerCgroups, canWrite: (dir: string) => boolean): { usable: CallerCgroups; refused: string[] } {
  const refused: string[] = []
  const usable: CallerCgroups = { v1: {} }
  if (all.v2) {
    if (canWrite(all.v2)) usable.v2 = all.v2
    else refused.push(all.v2)
  }
  for (const [c, dir] of Object.entries(all.v1)) {
    if (!USED_V1.includes(c)) continue
    if (canWrite(dir)) usable.v1[c] = dir
    else if (!refused.includes(dir)) refused.push(dir)
  }
  return { usable, refused }
}

const CONTROLLERS: readonly CgroupController[] = ['pids', 'memory', 'cpu']

/** Which limits can be placed, and in which version, given the usable hierarchies. */
export function describeHost(host: HostCgroups): { version: 'v1' | 'v2' | 'hybrid'; controllers: CgroupController[] } {
  const inV2 = CONTROLLERS.filter((c) => host.v2 && host.v2Controllers.includes(c))
  const inV1 = CONTROLLERS.filter((c) => !inV2.includes(c) && host.v1[c])
  const version = !host.v2 ? 'v1' : inV1.length ? 'hybrid' : 'v2'
  return { version, controllers: [...inV2, ...inV1] }
}

let cached: { key: string; probe: CgroupHostProbe } | undefined

/**
 * /proc/self/cgroup, read at offset 0 of a descriptor kept open (a seq_file
 * regenerates its text on every read from 0): the key of the cached probe,
 * read on every launch — a few microseconds instead of an open, an fstat
 * and a read loop.
 */
let selfCgroupFd: number | undefined
const selfCgroupBuf = Buffer.alloc(16 * 1024)
function readSelfCgroup(): string {
  try {
    selfCgroupFd ??= openSync('/proc/self/cgroup', 'r')
    const n = readSync(selfCgroupFd, selfCgroupBuf, 0, selfCgroupBuf.length, 0)
    // Longer than the buffer (thousands of v1 hierarchies): read it whole.
    return n < selfCgroupBuf.length ? selfCgroupBuf.toString('latin1', 0, n) : read('/proc/self/cgroup')
  } catch {
    return read('/proc/self/cgroup')
  }
}

/** The caller's cgroups and what they allow, probed again whenever this process has moved to other cgroups (or changed its uid). */
export function probeCgroups(): CgroupHostProbe {
  const key = `${process.geteuid?.()}:${readSelfCgroup()}`
  if (cached?.key === key) return cached.probe
  cached = { key, probe: probeNow() }
  return cached.probe
}

function probeNow(): CgroupHostProbe {
  const mounts = parseCgroupMounts(read('/proc/self/mountinfo'))
  if (mounts.length === 0) return { ok: false, reason: 'no cgroup filesystem is mounted (/proc/self/mountinfo lists none)', fix: 'mount cgroup2 on /sys/fs/cgroup' }
  const all = locateCallerCgroups(parseProcCgroup(read('/proc/self/cgroup')), mounts)
  if (all.v2) all.v2 = v2Parent(all.v2)
  const { usable, refused } = writableCgroups(all, writable)
  const v2Controllers = usable.v2 ? read(join(usable.v2, 'cgroup.controllers')).trim().split(/\s+/).filter(Boolean) : []
  const host: HostCgroups = { ...usable, v2Controllers }
  if (!host.v2 && Object.keys(host.v1).length === 0) {
    return { ok: false, reason: `the caller's cgroups (${refused.join(', ') || 'none found'}) are not writable by uid ${process.geteuid?.()}: no cgroup was delegated to it`, fix: DELEGATE_FIX }
  }
  const { version, controllers } = describeHost(host)
  const notes = refused.length ? [`not writable by this caller, so not used: ${refused.join(', ')}`] : []
  return { ok: true, host, version, controllers, notes }
}

/** cgroup.kill came with Linux 5.14 (cgroups(7)). */
export function hasCgroupKill(release: string): boolean {
  const [major = 0, minor = 0] = release.split(/[.-]/).map(Number)
  return major > 5 || (major === 5 && minor >= 14)
}

/** `cordon doctor`'s line on cgroups: usable or not, which version, which controllers, how a run is killed. */
export function cgroupDoctorCheck(release: string): { mechanism: string; ok: boolean; warning?: boolean; detail: string; fix?: string } {
  const p = probeCgroups()
  const mechanism = 'cgroups'
  if (!p.ok) return { mechanism, ok: false, detail: `unusable: ${p.reason}; runs get no process, memory or CPU limit`, fix: p.fix }
  const inV2 = (c: string) => p.host.v2 !== undefined && p.host.v2Controllers.includes(c)
  const where = p.controllers.map((c) => (inV2(c) ? `${c} (v2 ${p.host.v2})` : `${c} (v1 ${p.host.v1[c]})`)).join(', ')
  const kill = p.host.v2 && hasCgroupKill(release) ? 'cgroup.kill' : p.host.v1.freezer ? 'the v1 freezer, then SIGKILL' : 'SIGKILL to each process until none is left'
  const lacking = (['pids', 'memory', 'cpu'] as const).filter((c) => !p.controllers.includes(c))
  const holder = p.host.v2 ? `v2 ${p.host.v2}` : p.host.v1.freezer ? `v1 ${p.host.v1.freezer}` : 'the v1 hierarchies above'
  const detail = `${p.version}; controllers: ${where || 'none'}; each run's cgroup also lives below ${holder}, and its end kills it whole with ${kill}`
  if (lacking.length) return { mechanism, ok: true, warning: true, detail: `${detail}; no ${lacking.join(', ')} controller for this caller`, fix: DELEGATE_FIX }
  return { mechanism, ok: true, detail }
}

/** The doctor report's `cgroups` field. */
export function cgroupDoctorFacts(): { usable: boolean; version?: 'v1' | 'v2' | 'hybrid'; controllers: string[]; reason?: string; fix?: string } {
  const p = probeCgroups()
  return p.ok ? { usable: true, version: p.version, controllers: [...p.controllers] } : { usable: false, controllers: [], reason: p.reason, fix: p.fix }
}
