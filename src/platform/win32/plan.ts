/**
 * Planning a Windows launch, in pure TypeScript (unit-tested on any OS):
 * from the resolved profile to what the launcher changes and what the run
 * will enforce.
 *
 * - write roots: the sandbox SID is granted write (inheritable);
 * - protected paths that exist inside a write root: denied to the SID
 *   (inheritable), and their ancestors below the root guarded against
 *   DELETE (no renaming `.git` away). A protected path that does not exist
 *   cannot carry an ACE: the command could create it — reported missing;
 * - integrity: low unless a write root is a volume root (relabeling a whole
 *   drive low for a launch is not something to do to a machine); at low
 *   integrity the deny-read paths that exist get a medium no-read-up label;
 *   at medium integrity nothing stops reads — reported missing;
 * - limits: nproc → active processes, as → committed memory of the whole
 *   job, cpu → user-mode time of the whole job; nofile and fsize have no
 *   job equivalent — reported in the notes.
 *
 * Nothing here touches the machine: `exists` and `isDirectory` are the
 * only questions asked, and callers pass the real ones.
 */
import { win32 } from 'node:path'
import type { ResolvedPolicy } from '../../profile/resolve.js'
import type { Enforcement, MissingProtection } from '../enforcement.js'
import { statusOf } from '../enforcement.js'
import { isWithinWin32 } from './paths.js'

/** How this backend's enforcement has been verified: the report says it, so no caller can mistake it for more. */
export const VERIFIED = 'runs under Wine; token, ACL, job limits not yet run on real Windows'

export interface Win32LaunchPlan {
  sid: string
  integrity: 'low' | 'medium'
  allow: string[]
  deny: string[]
  guard: string[]
  noReadUp: string[]
  journal: string
  limits: { procs?: number; memory?: number; cpu?: number }
}

export interface PlanInput {
  policy: ResolvedPolicy
  explicit: ReadonlySet<string>
  sid: string
  journal: string
  exists: (path: string) => boolean
}

const isVolumeRoot = (p: string) => win32.parse(p).root === win32.normalize(p) || /^[A-Za-z]:\\?$/.test(p)

/** Ancestors of `p` strictly between `root` and `p`. */
function ancestorsBelow(p: string, root: string): string[] {
  const out: string[] = []
  for (let dir = win32.dirname(p); dir !== root && isWithinWin32(dir, root) && dir !== win32.dirname(dir); dir = win32.dirname(dir)) out.push(dir)
  return out
}

function protectedPlan(policy: ResolvedPolicy, exists: (p: string) => boolean) {
  const deny: string[] = []
  const guard = new Set<string>()
  const uncreated: string[] = []
  for (const p of policy.protectedPaths) {
    const root = policy.writeRoots.find((r) => isWithinWin32(p, r))
    if (!root) continue // outside every write root: the SID was never granted write there
    if (!exists(p)) {
      uncreated.push(p)
      continue
    }
    deny.push(p)
    for (const a of ancestorsBelow(p, root)) guard.add(a)
  }
  return { deny, guard: [...guard], uncreated }
}

function limitsOf(policy: ResolvedPolicy): Win32LaunchPlan['limits'] {
  const l = policy.limits
  return { ...(l.nproc ? { procs: l.nproc } : {}), ...(l.as ? { memory: l.as } : {}), ...(l.cpu ? { cpu: l.cpu } : {}) }
}

function missingOf(input: PlanInput, integrity: Win32LaunchPlan['integrity'], uncreated: string[]): MissingProtection[] {
  const { policy, explicit } = input
  const missing: MissingProtection[] = []
  if (policy.network === 'off') {
    missing.push({ protection: 'network', explicit: true, reason: 'a restricted token cannot block sockets: the command has the network (docs/windows.md#network)', fix: "pass compat: 'best-effort' to run with the network and see it in the report" })
  } else if (policy.network === 'inet') {
    missing.push({ protection: 'local-sockets', explicit: false, reason: 'named pipes and local sockets of other processes are not blocked as such (only writes to files are restricted)' })
  }
  if (!policy.readAll) missing.push({ protection: 'read-roots', explicit: true, reason: `a write-restricted token restricts writes only: reads outside ${policy.readRoots.join(', ')} are not blocked` })
  if (integrity === 'medium' && policy.denyRead.length) {
    missing.push({ protection: 'deny-read', explicit: true, reason: 'a write root is a volume root, so the command runs at medium integrity, where no label stops reads: the deny-read paths are readable', fix: 'use write roots below a volume root' })
  }
  if (integrity === 'medium') missing.push({ protection: 'integrity', explicit: false, reason: 'a write root is a volume root: the command runs at medium integrity' })
  if (uncreated.length) {
    missing.push({ protection: 'protected-paths', explicit: explicit.has('protected-paths'), reason: `not there, so no ACE can protect them and the command could create them: ${uncreated.join(', ')}`, fix: 'create them before the launch' })
  }
  return missing
}

export function planWin32(input: PlanInput): { plan: Win32LaunchPlan; enforcement: Enforcement } {
  const { policy } = input
  const integrity = policy.writeRoots.some(isVolumeRoot) ? 'medium' : 'low'
  const { deny, guard, uncreated } = protectedPlan(policy, input.exists)
  const noReadUp = integrity === 'low' ? policy.denyRead.filter(input.exists) : []
  const plan: Win32LaunchPlan = { sid: input.sid, integrity, allow: [...policy.writeRoots], deny, guard, noReadUp, journal: input.journal, limits: limitsOf(policy) }
  const notes = [`verified: ${VERIFIED}`]
  if (policy.limits.nofile || policy.limits.fsize) notes.push('limits nofile and fsize have no job-object equivalent on Windows: not applied')
  if (policy.denyGlobs.length) notes.push('deny-read globs cover the files that matched when planned; a file created later is not covered')
  const enforcement: Enforcement = {
    mode: 'restricted-token',
    modeReason: 'Windows: write-restricted token, ACLs, job object',
    status: 'none',
    mechanisms: ['restricted-token', 'acl', 'job', ...(integrity === 'low' ? ['integrity'] : [])],
    network: 'on',
    filesystem: {
      confined: true,
      readAll: true,
      readRoots: policy.readAll ? policy.readRoots : [],
      writeRoots: [...policy.writeRoots],
      denyRead: noReadUp,
      protected: policy.protectedPaths.filter((p) => !uncreated.includes(p)),
      narrowed: [],
      privateDirs: [],
    },
    envDropped: policy.envDropped,
    missing: missingOf(input, integrity, uncreated),
    notes,
    widening: { writeExcluded: [] },
    platform: {
      os: 'win32',
      token: 'write-restricted',
      integrity,
      capabilitySid: input.sid,
      job: { killOnClose: true, activeProcesses: plan.limits.procs ?? null, memoryBytes: plan.limits.memory ?? null, cpuSeconds: plan.limits.cpu ?? null },
      mitigations: true,
      verified: VERIFIED,
    },
  }
  enforcement.status = statusOf(enforcement)
  return { plan, enforcement }
}
