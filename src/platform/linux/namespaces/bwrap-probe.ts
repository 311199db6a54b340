/**
 * Can namespace mode run here? Asked once per process per bwrap path and
 * cached: find bwrap, read its version and options, then do what a launch
 * does — a real `bwrap … /bin/true` with the same namespaces — and, if that
 * fails, say why and how to fix it (bwrap-diagnose.ts).
 *
 * The checks are synchronous (spawnSync, a few milliseconds once per
 * process) because planning a launch is synchronous; nothing is probed per
 * run. A success with a well-known bwrap is also kept across processes
 * (bwrap-probe-cache.ts, keyed on the boot, the sysctls and the binary), so
 * a one-shot CLI does not pay the two spawns every time; bwrap is still
 * located, and its path checked, on every call.
 */
import { existsSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { NativeProbe } from '../../../native/binding.js'
import { diagnoseBwrapFailure, type NamespaceCause } from './bwrap-diagnose.js'
import { BWRAP_CANDIDATES, locateBwrap, type BwrapLocation } from './bwrap-locate.js'
import { bwrapProbeCache, type CachedProbe, type ProbeCacheOptions } from './bwrap-probe-cache.js'
import { probeHost } from '../probe.js'

export interface BwrapFeatures {
  /** --disable-userns (0.8.0): no further user namespaces inside the sandbox. */
  disableUserns: boolean
  /** --unshare-cgroup-try: a cgroup namespace where the kernel allows one. */
  cgroupTry: boolean
  /** --bind-fd/--ro-bind-fd (upstream 0.10.0; Debian backported them to 0.8.0): binds by descriptor, see bwrap-args.ts. */
  bindFd: boolean
}

export interface BwrapInfo {
  path: string
  realPath: string
  version: string | null
  setuid: boolean
  features: BwrapFeatures
  /** Known problems of this bwrap (shown in every report of a namespace-mode launch). */
  warnings: BwrapWarning[]
}

export interface BwrapWarning {
  detail: string
  fix: string
}

export type NamespaceSupport =
  | { ok: true; bwrap: BwrapInfo }
  | { ok: false; cause: NamespaceCause; reason: string; fix: string; bwrap?: BwrapInfo; stderr?: string }

/** Options without which cordon cannot build its sandbox (all present since bubblewrap 0.5). */
const REQUIRED = ['--unshare-user', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-net', '--die-with-parent', '--as-pid-1', '--cap-drop', '--clearenv', '--remount-ro', '--perms', '--tmpfs', '--proc', '--dev', '--ro-bind', '--bind']

const TRIAL_TIMEOUT_MS = 10_000

function run(file: string, args: string[]): { status: number | null; stdout: string; stderr: string; error?: Error } {
  // Loaded here, not at the top: with the cross-process cache most CLI runs
  // never probe, and node:child_process costs a `cordon run` ~7 ms to load.
  const { spawnSync } = createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process')
  const r = spawnSync(file, args, { env: {}, encoding: 'utf8', timeout: TRIAL_TIMEOUT_MS, stdio: ['ignore', 'pipe', 'pipe'] })
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', ...(r.error ? { error: r.error } : {}) }
}

/** "bubblewrap 0.8.0" → [0, 8, 0]; null when unparsable. */
export function parseBwrapVersion(text: string): [number, number, number] | null {
  const m = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(text)
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : null
}

export function versionBelow(v: [number, number, number], min: [number, number, number]): boolean {
  for (let i = 0; i < 3; i++) if (v[i] !== min[i]) return v[i]! < min[i]!
  return false
}

/** Known setup bugs by version. Distribution backports cannot be seen from the version. */
export function bwrapWarnings(version: string | null, setuid: boolean): BwrapWarning[] {
  const out: BwrapWarning[] = []
  const upgrade = 'upgrade bubblewrap to ≥ 0.12.0 (or confirm that your distribution backported the fix)'
  const v = version ? parseBwrapVersion(version) : null
  if (!v) out.push({ detail: 'the bwrap version is unknown: known setup bugs cannot be ruled out', fix: upgrade })
  else if (versionBelow(v, [0, 12, 0])) {
    out.push({
      detail:
        `bubblewrap ${version} predates 0.12.0 (CVE-2026-87766: while setting up mounts, bwrap may follow a symlink planted in a bound directory onto the host); ` +
        'cordon pre-creates every mount point inside writable roots and refuses symlinks there, which closes the known path',
      fix: upgrade,
    })
  }
  if (setuid) {
    out.push({
      detail: 'bwrap is installed setuid root: a larger attack surface than the unprivileged build (CVE-2020-5291 and CVE-2026-41163 were setuid-only)',
      fix: 'install a non-setuid bwrap and allow unprivileged user namespaces',
    })
  }
  return out
}

/** What a bwrap without some option cannot do, said in the report. */
export function featureWarnings(features: BwrapFeatures): BwrapWarning[] {
  if (features.bindFd) return []
  return [
    {
      detail: 'this bwrap has no --bind-fd: binds are passed by path, so a sandbox still running in the same or an enclosing workspace could swap one for a symlink between cordon\'s checks and the mount',
      fix: 'bubblewrap ≥ 0.10.0 (or a distribution build with --bind-fd backported, as Debian 0.8.0)',
    },
  ]
}

/** The namespace flags of every launch (also used by the trial run, so the trial tests what runs). */
export function namespaceFlags(f: BwrapFeatures, networkOff: boolean): string[] {
  return [
    '--unshare-user',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    ...(f.cgroupTry ? ['--unshare-cgroup-try'] : []),
    ...(networkOff ? ['--unshare-net'] : []),
    '--die-with-parent',
    '--as-pid-1',
    '--cap-drop',
    'ALL',
    ...(f.disableUserns ? ['--disable-userns'] : []),
    '--clearenv',
  ]
}

function trueBinary(): string {
  return ['/bin/true', '/usr/bin/true'].find((p) => existsSync(p)) ?? '/bin/true'
}

function trial(info: BwrapInfo): { ok: boolean; stderr: string } {
  const args = [...namespaceFlags(info.features, true), '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--', trueBinary()]
  const r = run(info.path, args)
  return { ok: r.status === 0, stderr: r.error ? `${r.error.message}\n${r.stderr}` : r.stderr }
}

/** Marks the end of `--version`'s output in the combined run below. */
const SEPARATOR = '--cordon-version-end--'

/**
 * `bwrap --version` and `bwrap --help` in one spawn: /bin/sh runs both, the
 * bwrap path travelling as "$1" (never interpolated into the script). Each
 * spawn from Node forks the whole Node process, which is what a CLI
 * invocation pays for first.
 */
function versionAndHelp(path: string): { version: string; help: string; error?: Error } {
  const r = run('/bin/sh', ['-c', `"$1" --version; echo ${SEPARATOR}; "$1" --help`, 'sh', path])
  const at = r.stdout.indexOf(SEPARATOR)
  if (r.error || at < 0) return { version: '', help: '', error: r.error ?? new Error(`could not run ${path}: ${r.stderr.trim()}`) }
  return { version: r.stdout.slice(0, at), help: r.stdout.slice(at + SEPARATOR.length) }
}

function describe(path: string, realPath: string): BwrapInfo | { error: string } {
  const vh = versionAndHelp(path)
  if (vh.error) return { error: vh.error.message }
  const options = new Set(vh.help.match(/--[a-z][a-z0-9-]*/g) ?? [])
  const missing = REQUIRED.filter((o) => !options.has(o))
  const version = parseBwrapVersion(vh.version)?.join('.') ?? null
  if (missing.length) return { error: `bwrap ${version ?? '(unknown version)'} lacks ${missing.join(', ')}` }
  const setuid = (statSync(realPath).mode & 0o4000) !== 0
  const features = { disableUserns: options.has('--disable-userns'), cgroupTry: options.has('--unshare-cgroup-try'), bindFd: options.has('--bind-fd') && options.has('--ro-bind-fd') }
  return { path, realPath, version, setuid, features, warnings: [...bwrapWarnings(version, setuid), ...featureWarnings(features)] }
}

export function probeNamespacesUncached(explicit: string | undefined, probe: NativeProbe): NamespaceSupport {
  const loc = locateBwrap(explicit)
  if (!loc.ok) return notLocated(loc)
  return probeLocated(loc, probe)
}

function notLocated(loc: Extract<BwrapLocation, { ok: false }>): NamespaceSupport {
  return { ok: false, cause: loc.cause, reason: loc.reason, fix: loc.fix }
}

/** The version/help query and the trial run for a located bwrap. */
function probeLocated(loc: Extract<BwrapLocation, { ok: true }>, probe: NativeProbe): NamespaceSupport {
  const info = describe(loc.path, loc.realPath)
  if ('error' in info) return { ok: false, cause: 'bwrap-too-old', reason: info.error, fix: 'install bubblewrap ≥ 0.5 (Debian 12 and Ubuntu 22.04 ship suitable versions)' }
  const t = trial(info)
  // Some hosts refuse the write to max_user_namespaces that --disable-userns
  // does inside the sandbox; the seccomp filter blocks new user namespaces anyway.
  if (!t.ok && info.features.disableUserns && /max_user_namespaces|disable-userns|userns/i.test(t.stderr)) {
    const without = { ...info, features: { ...info.features, disableUserns: false } }
    const retry = trial(without)
    if (retry.ok) {
      const detail = `--disable-userns failed here (${t.stderr.trim()}); nested user namespaces are blocked by the seccomp filter only`
      without.warnings = [...without.warnings, { detail, fix: 'a bwrap and kernel where --disable-userns works (bubblewrap ≥ 0.8, Linux ≥ 4.9)' }]
      return { ok: true, bwrap: without }
    }
  }
  if (t.ok) return { ok: true, bwrap: info }
  return { ok: false, ...diagnoseBwrapFailure(t.stderr, probe), bwrap: info, stderr: t.stderr }
}

/** The facts worth keeping across processes (path, real path and setuid are always read live). */
export function probeFacts(info: BwrapInfo): CachedProbe {
  const derived = new Set([...bwrapWarnings(info.version, info.setuid), ...featureWarnings(info.features)].map((w) => w.detail))
  return { version: info.version, features: { ...info.features }, extraWarnings: info.warnings.filter((w) => !derived.has(w.detail)) }
}

/** A BwrapInfo for the located binary from stored facts; null when the binary is gone. */
export function infoFromFacts(loc: { path: string; realPath: string }, facts: CachedProbe): BwrapInfo | null {
  let setuid: boolean
  try {
    setuid = (statSync(loc.realPath).mode & 0o4000) !== 0
  } catch {
    return null
  }
  const warnings = [...bwrapWarnings(facts.version, setuid), ...featureWarnings(facts.features), ...facts.extraWarnings]
  return { path: loc.path, realPath: loc.realPath, version: facts.version, setuid, features: { ...facts.features }, warnings }
}

export interface ProbeOptions {
  /** Probe again even if this process or the persistent cache has an answer, and store a success. */
  refresh?: boolean
  /** Where the persistent cache lives (tests). */
  cache?: ProbeCacheOptions
}

/**
 * The persistent cache only holds the well-known locations: a `bwrap`
 * option pointing elsewhere (tests, fakes) is probed once per process.
 */
function persistable(explicit: string | undefined, loc: { path: string }): boolean {
  return (explicit === undefined || (BWRAP_CANDIDATES as readonly string[]).includes(explicit)) && (BWRAP_CANDIDATES as readonly string[]).includes(loc.path)
}

/** Locate bwrap (always), then the stored answer for that binary on this boot, else a real probe. */
export function probeNamespacesPersistent(explicit: string | undefined, opts: ProbeOptions = {}, hostProbe: () => NativeProbe = probeHost): NamespaceSupport {
  const loc = locateBwrap(explicit)
  if (!loc.ok) return notLocated(loc)
  const entry = persistable(explicit, loc) ? bwrapProbeCache(loc, opts.cache) : null
  if (entry && !opts.refresh) {
    const facts = entry.read()
    const info = facts && infoFromFacts(loc, facts)
    if (info) return { ok: true, bwrap: info }
  }
  const result = probeLocated(loc, hostProbe())
  if (result.ok) entry?.write(probeFacts(result.bwrap))
  else entry?.remove()
  return result
}

const cache = new Map<string, NamespaceSupport>()

/**
 * Cached per process and bwrap path (the first launch pays for the trial
 * run, later ones do not), and across processes for a successful probe of a
 * well-known bwrap (bwrap-probe-cache.ts).
 */
export function probeNamespaces(explicit?: string, opts: ProbeOptions = {}): NamespaceSupport {
  const key = explicit ?? ''
  let hit = opts.refresh ? undefined : cache.get(key)
  if (!hit) {
    hit = probeNamespacesPersistent(explicit, opts)
    cache.set(key, hit)
  }
  return hit
}

/**
 * Forget what is known about namespace mode for this bwrap, in this process
 * and on disk: a launch just failed to create its namespaces, so the host
 * changed since the probe (a parent sandbox's seccomp filter, an AppArmor
 * change, the user-namespace limit reached). The next launch probes again.
 */
export function forgetNamespaceProbe(explicit?: string, opts: Pick<ProbeOptions, 'cache'> = {}): void {
  cache.delete(explicit ?? '')
  const loc = locateBwrap(explicit)
  if (loc.ok && persistable(explicit, loc)) bwrapProbeCache(loc, opts.cache)?.remove()
}
