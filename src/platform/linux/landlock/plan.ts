/**
 * Build the launcher plan (the JSON the launcher reads on its plan fd) and
 * the enforcement it is expected to achieve on this host. Landlock mode is
 * here; namespace mode (bwrap-mode.ts) reuses the template and the shared
 * "missing" entries, so both modes report a missing mechanism the same way.
 */
import type { NativeProbe } from '../../../native/binding.js'
import { constants } from 'node:os'
import { loadNative } from '../../../native/load.js'
import type { ResolvedPolicy } from '../../../profile/resolve.js'
import type { Enforcement, MissingProtection } from '../../enforcement.js'
import { statusOf, unconfinedFilesystem } from '../../enforcement.js'
import { rlimitsOf } from '../../plan-common.js'
import { coversHostDevices, DEVICE_FILES, landlockRules, type LandlockRule } from './landlock-rules.js'
import { landlockFeatures } from '../probe.js'
import { loadSeccompRules, type SeccompRule } from '../seccomp/seccomp-rules.js'

export interface LauncherPlan {
  v: 1
  argv: string[]
  env: string[]
  cwd: string
  compat: 'hard' | 'best-effort'
  keepFds?: number[]
  rlimits: { resource: string; soft: string; hard: string }[]
  /** `connectPorts`: network through the proxy — TCP connect only to these ports, bind none. */
  landlock: { rules: LandlockRule[]; networkOff: boolean; connectPorts?: number[]; scopeSignal: boolean; scopeAbstractUnix: boolean; log: boolean } | null
  /** BPF compiled by libseccomp in the addon (base64) and the number of rules it came from. */
  seccomp: { bpf: string; rules: number } | null
  /**
   * Landlock mode: the `notify` rules (chmod, chown, utimes, xattrs) as a
   * second filter whose listener the launcher's supervisor holds; it performs
   * such calls beneath a write root and answers EPERM elsewhere
   * (native/linux/metadata.h). Absent in namespace mode, where read-only
   * mounts refuse them.
   */
  metadata?: { bpf: string; rules: number }
  /** Namespace mode with a network allowlist: the in-sandbox forwarder's port and the proxy's unix socket (native/linux/forwarder.c). */
  forwarder?: { port: number; socket: string; seccomp?: { bpf: string; rules: number } }
  /** Which of fds 0–2 carries the PTY cordon made for the command: its controlling terminal (launch/pty.ts). */
  ctty?: 0 | 1 | 2
}

export interface PlanContext {
  policy: ResolvedPolicy
  probe: NativeProbe
  /** Protections the caller named explicitly (compat default refuses when they are missing). */
  explicit: ReadonlySet<string>
  /** The caller accepts a run whose filesystem nothing confines (else Landlock failing at launch is fatal). */
  allowUnconfinedFilesystem?: boolean
}

/** The profile's limits as the launcher's rlimits (shared with the macOS backend). */
export const rlimits: (policy: ResolvedPolicy) => LauncherPlan['rlimits'] = rlimitsOf

const compiled = new Map<string, NonNullable<LauncherPlan['seccomp']>>()

/** Compile the rules `pick` selects once per process (libseccomp takes milliseconds). */
function program(key: string, pick: (r: SeccompRule) => boolean): NonNullable<LauncherPlan['seccomp']> {
  let prog = compiled.get(key)
  if (!prog) {
    const rules = loadSeccompRules()
      .filter(pick)
      .map(({ syscall, action, errno, args }) => ({ syscall, action, ...(errno !== undefined ? { errno } : {}), args }))
    prog = { bpf: loadNative().binding.compileSeccomp(rules).toString('base64'), rules: rules.length }
    compiled.set(key, prog)
  }
  return prog
}

/** Whether a rule applies under a network level: `net-off` rules with the network off, `unix-off` ones unless it is fully on. */
function applies(r: SeccompRule, network: ResolvedPolicy['network']): boolean {
  return r.when === 'always' || (r.when === 'net-off' && network === 'off') || (r.when === 'unix-off' && network !== 'on') || (r.when === 'net-proxy' && network === 'proxy')
}

/** The syscall filter of a network mode (both modes). */
export function seccompProgram(network: ResolvedPolicy['network']): NonNullable<LauncherPlan['seccomp']> {
  return program(network, (r) => r.action !== 'notify' && applies(r, network))
}

/**
 * Rules of namespace mode's forwarder (native/linux/forwarder.c) on top of
 * the file's always-rules: it needs one AF_UNIX socket per connection, and
 * never execs, binds or listens (its listener is made before it starts).
 * Its splice loop (forwarder-serve.c) needs pipe2, splice, fcntl
 * (F_SETPIPE_SZ) and epoll_*: no rule here or among the always-rules names
 * them (the default is allow), so none is added.
 */
const FORWARDER_RULES: readonly Omit<SeccompRule, 'when' | 'reason'>[] = [
  { syscall: 'socket', action: 'errno', errno: constants.errno.EAFNOSUPPORT, args: [{ arg: 0, op: 'ne', value: '0x1' }] },
  { syscall: 'execve', action: 'errno', errno: constants.errno.EPERM, args: [] },
  { syscall: 'execveat', action: 'errno', errno: constants.errno.EPERM, args: [] },
  { syscall: 'bind', action: 'errno', errno: constants.errno.EPERM, args: [] },
  { syscall: 'listen', action: 'errno', errno: constants.errno.EPERM, args: [] },
]

/** The forwarder's own filter: the always-rules (not the command's unix-socket rule) plus FORWARDER_RULES. */
export function forwarderProgram(): NonNullable<LauncherPlan['seccomp']> {
  let prog = compiled.get('forwarder')
  if (!prog) {
    const rules = [...loadSeccompRules().filter((r) => r.when === 'always' && r.action !== 'notify'), ...FORWARDER_RULES].map(({ syscall, action, errno, args }) => ({ syscall, action, ...(errno !== undefined ? { errno } : {}), args }))
    prog = { bpf: loadNative().binding.compileSeccomp(rules).toString('base64'), rules: rules.length }
    compiled.set('forwarder', prog)
  }
  return prog
}

/** The supervisor's filter of Landlock mode: the `notify` rules of a network level (connect joins them with an allowlist). */
export function metadataProgram(network: ResolvedPolicy['network']): NonNullable<LauncherPlan['metadata']> {
  return program(network === 'proxy' ? 'metadata-proxy' : 'metadata', (r) => r.action === 'notify' && applies(r, network))
}

/**
 * With an allowlist the supervisor decides connect(2) (native/linux/notify-connect.c):
 * Landlock's TCP rule matches the proxy's port on every host, the supervisor
 * the address too. It needs seccomp, as the metadata filter does.
 */
function connectSupervised(ctx: PlanContext): boolean {
  return ctx.policy.network === 'proxy' && ctx.probe.seccomp
}

/**
 * Landlock mode closes its metadata gap with the supervisor's filter, which
 * needs seccomp; a write root of / leaves no gap to close, and without
 * Landlock nothing confines the filesystem at all (the `filesystem` entry).
 */
function metadataGap(ctx: PlanContext): boolean {
  return ctx.probe.landlockAbi !== null && !ctx.policy.writeRoots.includes('/')
}

/** Network through the proxy: its port is the one TCP connect Landlock allows (0 in a report made before the proxy listens). */
function connectPorts(policy: ResolvedPolicy): { connectPorts?: number[] } {
  return policy.network === 'proxy' ? { connectPorts: [policy.proxyPort ?? 0] } : {}
}

export type PlanTemplate = Omit<LauncherPlan, 'argv' | 'env' | 'compat'>

/** The launcher's part of a launch (both modes), without argv/env (filled per run). */
export function launcherTemplate(ctx: PlanContext, rules: LandlockRule[] | null): PlanTemplate {
  const { policy, probe } = ctx
  return {
    v: 1,
    cwd: policy.cwd,
    rlimits: rlimits(policy),
    landlock: rules && { rules, networkOff: policy.network === 'off', ...connectPorts(policy), scopeSignal: true, scopeAbstractUnix: policy.network !== 'on', log: true },
    seccomp: probe.seccomp ? seccompProgram(policy.network) : null,
  }
}

/** The template of a Landlock-mode launch. */
export function buildLandlockPlan(ctx: PlanContext) {
  const ll = ctx.probe.landlockAbi !== null ? landlockRules(ctx.policy) : null
  const template = launcherTemplate(ctx, ll?.rules ?? null)
  if ((metadataGap(ctx) && ctx.probe.seccomp) || connectSupervised(ctx)) template.metadata = metadataProgram(ctx.policy.network)
  return { template, enforcement: expectedEnforcement(ctx, ll?.narrowed ?? []) }
}

export function landlockUnavailable(probe: NativeProbe, consequence: string): MissingProtection {
  return { protection: 'landlock', explicit: true, reason: `Landlock is unavailable (errno ${probe.landlockErrno}): ${consequence}`, fix: 'boot a kernel ≥ 5.13 with lsm=landlock,… (CONFIG_SECURITY_LANDLOCK=y)' }
}

export function seccompUnavailable(probe: NativeProbe): MissingProtection {
  return { protection: 'seccomp', explicit: true, reason: `seccomp filters are unavailable (errno ${probe.seccompErrno})`, fix: 'a kernel with CONFIG_SECCOMP_FILTER' }
}

function missingFor(ctx: PlanContext): MissingProtection[] {
  const { policy, probe, explicit } = ctx
  const missing: MissingProtection[] = []
  const abi = probe.landlockAbi
  if (abi === null) {
    // The refusal is the `filesystem` entry's (waived only by
    // allowUnconfinedFilesystem); this one says which mechanism is absent.
    missing.push({ ...landlockUnavailable(probe, 'reads and writes are not confined'), explicit: false })
    missing.push(unconfinedFilesystem('Landlock mode without Landlock', 'install bubblewrap and allow unprivileged user namespaces (namespace mode), or boot a kernel with Landlock'))
  } else {
    for (const f of landlockFeatures()) if (abi < f.abi) missing.push({ protection: f.protection, explicit: false, reason: f.reason, fix: `a kernel with Landlock ABI ${f.abi}` })
  }
  if (!probe.seccomp) missing.push(seccompUnavailable(probe))
  if (policy.network === 'off' && !probe.seccomp && (abi === null || abi < 4)) missing.push({ protection: 'network', explicit: true, reason: 'neither seccomp nor Landlock ABI 4 can block sockets' })
  if (policy.network === 'inet' && !probe.seccomp) missing.push(localSocketsReachable(abi !== null && abi >= 6 ? 'pathname' : 'pathname and abstract'))
  if (policy.network === 'proxy') missing.push(...proxyMissing(abi, probe.seccomp))
  if (metadataGap(ctx) && !probe.seccomp) {
    missing.push({ protection: 'file-metadata', explicit: false, reason: 'Landlock (ABI ≤ 7) has no right for chmod/chown/utimes/xattrs, and without seccomp the supervisor cannot be asked (user notification): files the caller owns outside the write roots can still have their mode bits, owner group, timestamps, extended attributes and ACLs changed', fix: 'a kernel with CONFIG_SECCOMP_FILTER, or namespace mode (read-only mounts deny them)' })
  }
  if (policy.protectedPaths.length > 0) missing.push({ protection: 'protected-paths', explicit: explicit.has('protected-paths'), reason: 'protected paths inside write roots need namespace mode (read-only bind mounts); Landlock cannot take rights back below a write root without breaking it', fix: 'install bubblewrap and allow unprivileged user namespaces' })
  return missing
}

/** The planned note on connect(2) with an allowlist in Landlock mode (start.ts replaces it when no listener could be had). */
export const CONNECT_SUPERVISED = "TCP connect() is decided by the supervisor: only the proxy's endpoint (127.0.0.1 on its port) is connected; any other address, the proxy's port on another host included, is refused with EACCES (Landlock's TCP rule matches the port alone)"

/** The planned note on file metadata in Landlock mode (start.ts replaces it when no listener could be had). */
export const METADATA_SUPERVISED = 'chmod, chown, utimes, extended attributes and attribute flags are decided by the supervisor: performed beneath a write root, EPERM elsewhere'

/**
 * Network through the proxy in Landlock mode. Landlock (ABI ≤ 7) matches a
 * TCP port, never an address: connect() to port P of any host passes, not
 * only to the proxy on 127.0.0.1:P. With seccomp the supervisor checks the
 * address (CONNECT_SUPERVISED); without, the gap is reported, never hidden.
 */
export function proxyMissing(abi: number | null, seccomp: boolean): MissingProtection[] {
  const missing: MissingProtection[] = []
  if (abi === null || abi < 4) missing.push({ protection: 'network', explicit: true, reason: `a network allowlist needs Landlock's TCP rules (ABI 4) to keep connections to the proxy; this kernel has ${abi === null ? 'no Landlock' : `ABI ${abi}`}: the launcher refuses to start the command`, fix: 'a kernel ≥ 6.7' })
  if (seccomp) return missing
  missing.push({ protection: 'network', explicit: true, reason: 'without seccomp, UDP (DNS), raw and non-TCP sockets are not refused: only TCP goes through the proxy', fix: 'a kernel with CONFIG_SECCOMP_FILTER' })
  missing.push(portOnly('without seccomp the supervisor cannot check the address of a connect()'))
  return missing
}

/** Only the port of a connect is checked: the proxy's port on every host passes. */
export function portOnly(why: string): MissingProtection {
  return {
    protection: 'network-port-only',
    explicit: false,
    reason: `Landlock (ABI ≤ 7) matches TCP ports, not addresses, and ${why}: connect() to the proxy's port on any other host passes too — a command that knows the IP address of an outside server listening on that port reaches it directly, bypassing the allowlist (the proxy listens on 127.0.0.1 on a fresh ephemeral port per sandbox; the sandbox has no DNS or UDP and cannot bind a port)`,
    fix: "namespace mode: the sandbox gets a network namespace with loopback only and reaches the proxy through the launcher's forwarder",
  }
}

/** Network `inet` without seccomp: nothing refuses AF_UNIX sockets (Landlock ABI 6 scopes abstract ones only). */
export function localSocketsReachable(which: string): MissingProtection {
  return { protection: 'local-sockets', explicit: true, reason: `network inet keeps host unix sockets out, but without seccomp the ${which} unix sockets of host daemons stay reachable`, fix: 'a kernel with CONFIG_SECCOMP_FILTER' }
}

export function globsNote(policy: ResolvedPolicy): string | null {
  return policy.denyGlobs.length ? `deny-read globs (${policy.denyGlobs.join(', ')}) cover the files that matched at launch only` : null
}

/** The report fields both modes fill the same way: what the probe offers and the policy asks. */
export function commonEnforcement(
  ctx: PlanContext,
  namespaces: boolean,
  filesystem: Pick<Enforcement['filesystem'], 'protected' | 'narrowed' | 'privateDirs'>,
  widening: Enforcement['widening'],
) {
  const { policy, probe } = ctx
  const landlock = probe.landlockAbi !== null
  return {
    mechanisms: [...(namespaces ? ['namespaces'] : []), ...(landlock ? ['landlock'] : []), ...(probe.seccomp ? ['seccomp'] : [])],
    network: policy.network,
    ...(policy.network === 'proxy' ? { proxy: { port: policy.proxyPort ?? 0, allow: [...(policy.allowlist?.allow ?? [])], deny: [...(policy.allowlist?.deny ?? [])], requests: [] } } : {}),
    filesystem: { confined: namespaces || landlock, readAll: policy.readAll, readRoots: policy.readRoots, writeRoots: policy.writeRoots, denyRead: policy.denyRead, ...filesystem },
    envDropped: policy.envDropped,
    widening,
    platform: { os: 'linux', landlockAbi: probe.landlockAbi, seccomp: probe.seccomp, noNewPrivs: true, capabilitiesDropped: true },
  } satisfies Partial<Enforcement>
}

function expectedEnforcement(ctx: PlanContext, narrowed: string[]): Enforcement {
  const { policy } = ctx
  const missing = missingFor(ctx)
  const notes = ['Landlock-only mode: no pid/ipc/network namespaces (host SysV IPC objects the caller can reach stay reachable); the launcher stays as a subreaper supervisor that kills what the command leaves behind (double-forked, setsid) when it exits, times out, is aborted or its caller dies']
  if (metadataGap(ctx) && ctx.probe.seccomp) notes.push(METADATA_SUPERVISED)
  if (connectSupervised(ctx)) notes.push(CONNECT_SUPERVISED)
  const globs = globsNote(policy)
  if (globs) notes.push(globs)
  if (policy.readRoots.some(coversHostDevices)) notes.push(`host devices are not readable: under /dev only ${DEVICE_FILES.join(', ')}`)
  if (narrowed.length) notes.push(`to keep denied paths unreadable these directories cannot be listed${policy.writeRoots.some((w) => narrowed.includes(w)) ? ' (nor written directly)' : ''}: ${narrowed.join(', ')}`)
  const e: Enforcement = {
    mode: 'landlock',
    modeReason: 'Landlock + seccomp in the launcher',
    status: 'none',
    ...commonEnforcement(ctx, false, { protected: policy.protectedPaths, narrowed, privateDirs: [] }, { writeExcluded: [] }),
    missing,
    notes,
  }
  e.status = statusOf(e)
  return e
}
