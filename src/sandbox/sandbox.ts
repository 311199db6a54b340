/**
 * createSandbox(): a sandbox is a profile bound to a cwd, a mode and a compat
 * choice. No global state: several sandboxes with different profiles can run
 * at once. Each run re-resolves the profile (paths are re-checked for planted
 * symlinks every time) and spawns one confined child.
 */
import { tmpdir as osTmpdir } from 'node:os'
import { resolve } from 'node:path'
import { loadProfile, DEFAULT_PROFILE } from '../profile/profiles.js'
import { resolvePolicy, type ResolvedPolicy } from '../profile/resolve.js'
import { revalidate, type CanonCache } from '../profile/paths.js'
import type { Profile, ProfileInput } from '../profile/schema.js'
import { SetupError } from '../errors.js'
import type { PlanRequest, PlatformBackend, PreparedLaunch } from '../platform/backend.js'
import { backendFor } from '../platform/index.js'
import { makeOwnedTempDir, removeOwnedDir } from '../platform/owned-dirs.js'
import { checkCompat } from './compat.js'
import { SandboxNetwork } from './network.js'
import type { Enforcement } from '../platform/enforcement.js'
import { parseSandboxOptions, type BufferRunOptions, type ParsedSandboxOptions, type SandboxOptions, type TextRunOptions } from './options.js'
import { checkRunCwd } from './run-cwd.js'
import { startRun, type RunOptions, type SandboxProcess } from './run.js'
import type { SandboxResult } from './result.js'

export interface Sandbox {
  /**
   * Run a command to completion: `run(['npm', 'test'], { timeout })`.
   * Resolves also when stopped (`timedOut`, `isCanceled`); rejects only when
   * the run could not be set up. stdin defaults to `'ignore'` (end of file).
   * Output is text, or Buffers with `encoding: 'buffer'`.
   */
  run(command: readonly string[], options: BufferRunOptions): Promise<SandboxResult<Buffer>>
  run(command: readonly string[], options?: TextRunOptions): Promise<SandboxResult>
  run(command: readonly string[], options?: RunOptions): Promise<SandboxResult<string | Buffer>>
  /**
   * Start a command and stream it: `spawn('sh', ['-c', '…'])`. Awaitable like
   * execa's subprocess, with the same result as `run()`. stdin defaults to
   * `'pipe'`: `child.stdin` is a stream (end it when the command reads stdin).
   */
  spawn(file: string, args: readonly string[] | undefined, options: BufferRunOptions): SandboxProcess<Buffer>
  spawn(file: string, args?: readonly string[], options?: TextRunOptions): SandboxProcess
  spawn(file: string, args?: readonly string[], options?: RunOptions): SandboxProcess<string | Buffer>
  /** What would be enforced here, without running anything. */
  report(): Enforcement
  /**
   * Resolves once the sandbox can start a command: with a network
   * allowlist, when its proxy listens (`run()` waits by itself; `spawn()`
   * before that throws a SetupError). Rejects when the proxy cannot listen.
   */
  ready(): Promise<void>
  /** Remove the sandbox's private temp dir (and stop its network proxy once no run is left). */
  close(): void
  readonly cwd: string
  readonly profileName: string
}

function mergeProfile(base: Profile, o: ParsedSandboxOptions): { profile: Profile; explicitProtected: boolean } {
  const fs = base.filesystem
  const read = o.read?.length ? (fs.read === 'all' ? 'all' : [...fs.read, ...o.read]) : fs.read
  const profile: Profile = {
    ...base,
    filesystem: {
      ...fs,
      read,
      write: [...fs.write, ...(o.write ?? [])],
      denyRead: [...fs.denyRead, ...(o.denyRead ?? [])],
      protected: [...fs.protected, ...(o.protected ?? [])],
    },
    network: o.network ?? base.network,
    limits: { ...base.limits, ...o.limits },
  }
  const explicitProtected = (o.protected?.length ?? 0) > 0 || (typeof o.profile === 'object' && base.filesystem.protected.length > 0)
  return { profile, explicitProtected }
}

class PlatformSandbox implements Sandbox {
  readonly cwd: string
  readonly profileName: string
  private readonly profile: Profile
  private readonly explicit: Set<string>
  private readonly baseEnv: NodeJS.ProcessEnv
  private tmp: string | undefined
  private readonly backend: PlatformBackend
  /** The launch prepare() planned last, until track() takes it. */
  private launched: PreparedLaunch | undefined
  private readonly canonCache: CanonCache = new Map()
  /** Runs started and not yet ended: the temp dir is removed only when none is left (close()). */
  private active = 0
  private closed = false
  /** The network proxy, when the profile has an allowlist. */
  private readonly network: SandboxNetwork | undefined

  constructor(private readonly options: ParsedSandboxOptions) {
    // First: an unsupported platform is refused before anything is created.
    this.backend = backendFor()
    this.cwd = resolve(options.cwd ?? process.cwd())
    const spec = options.profile ?? DEFAULT_PROFILE
    const loaded = loadProfile(spec as string | ProfileInput)
    this.profileName = typeof spec === 'string' ? spec : (loaded.name ?? 'custom')
    const { profile, explicitProtected } = mergeProfile(loaded, options)
    this.profile = profile
    this.explicit = new Set(explicitProtected ? ['protected-paths'] : [])
    this.baseEnv = { ...(options.env ?? process.env) }
    this.network = typeof profile.network === 'object' ? new SandboxNetwork(profile.network, options) : undefined
    // Validate paths and cwd now, so bad input fails at creation and nothing runs;
    // a caller that gets no sandbox cannot close() it, so its temp dir goes now.
    try { this.resolve() } catch (err) { this.removeTmp(); throw err }
  }

  /**
   * The private temp dir, `$TMPDIR/cordon-XXXXXX`, with an owner marker
   * (platform/owned-dirs.ts): removed by close(), or at process exit for a
   * sandbox never closed; one left by a crashed process is swept by the
   * next process that makes one (once per process, not per run).
   */
  private tmpdir(): string {
    this.tmp ??= makeOwnedTempDir(osTmpdir(), 'cordon-')
    return this.tmp
  }

  private resolve(): ResolvedPolicy {
    return resolvePolicy({ profile: this.profile, profileName: this.profileName, cwd: this.cwd, tmpdir: this.tmpdir(), baseEnv: this.baseEnv, cache: this.canonCache, ...this.proxyPort() })
  }

  /** The proxy's port once it listens (a report before that shows port 0). */
  private proxyPort(): { proxyPort?: number; proxySocket?: string; proxyToken?: string } {
    try {
      if (!this.network) return {}
      const port = this.network.port()
      const socket = this.network.socketPath()
      return { proxyPort: port, proxyToken: this.network.token, ...(socket ? { proxySocket: socket } : {}) }
    } catch {
      return {}
    }
  }

  ready(): Promise<void> {
    return this.network?.ready ?? Promise.resolve()
  }

  /** The network part of a run: its requests are those made between mark and the end. */
  networkRun(): { finish(e: Enforcement): Enforcement } | undefined {
    const net = this.network
    if (!net) return undefined
    const mark = net.mark()
    return { finish: (e) => net.reportSince(mark, e) }
  }

  private planRequest(): PlanRequest {
    return { policy: this.resolve(), mode: this.options.mode, explicit: this.explicit, bwrap: this.options.bwrap, allowUnconfinedFilesystem: this.options.allowUnconfinedFilesystem === true }
  }

  /** Resolve and plan one launch; throws typed errors before anything runs. */
  prepare(): { backend: PlatformBackend; prepared: PreparedLaunch; policy: ResolvedPolicy } {
    this.network?.port() // a run never starts before its proxy listens (throws a SetupError)
    const req = this.planRequest()
    const prepared = this.backend.prepare(req)
    this.launched = prepared // given back by track(), also when a check below refuses
    checkCompat(prepared.enforcement, { compat: this.options.compat, unsandboxed: req.policy.unsandboxed, allowUnconfinedFilesystem: req.allowUnconfinedFilesystem === true })
    return { backend: this.backend, prepared, policy: req.policy }
  }

  /** prepare()'s checks and report, creating nothing (a run canceled before it starts). */
  preview(): { policy: ResolvedPolicy; enforcement: Enforcement } {
    const req = this.planRequest()
    const enforcement = this.backend.report(req)
    checkCompat(enforcement, { compat: this.options.compat, unsandboxed: req.policy.unsandboxed, allowUnconfinedFilesystem: req.allowUnconfinedFilesystem === true })
    return { policy: req.policy, enforcement }
  }

  /**
   * Check again the canonical forms of paths outside the write roots that
   * this sandbox cached across runs (profile/paths.ts CanonCache), keeping
   * only those the filesystem still says the same of (revalidate: one batch
   * of lstats where the backend has one, else all dropped): the next run
   * sees every path as a new sandbox would. For a sandbox that serves
   * several callers in turn (orchestrator/sandbox-pool.ts), where
   * something outside this sandbox — the host, a wider attempt — may have
   * changed those paths since the last run.
   */
  recheckPaths(): void {
    const facts = this.backend.hostFacts
    revalidate(this.canonCache, facts && ((paths) => facts.pathKinds(paths)))
  }

  /** Its private $TMPDIR (`$TMPDIR/cordon-XXXXXX`) while it exists: a write root of every run. */
  privateTmp(): string | undefined {
    return this.tmp
  }

  runCwd(raw: string, policy: ResolvedPolicy, enforcement: Enforcement): string {
    return checkRunCwd(raw, { policy, enforcement, cache: this.canonCache })
  }

  report(): Enforcement {
    return this.backend.report(this.planRequest())
  }

  /** Start one run; what its launch holds (namespace-mode placeholder leases) is given back when it ends. */
  private track<T extends Promise<unknown>>(start: () => T): T {
    this.launched = undefined
    let proc: T
    try {
      proc = start()
    } catch (err) {
      if (this.launched) this.backend.release(this.launched)
      this.launched = undefined
      if (this.closed && this.active === 0) this.removeTmp() // a run after close() that never started
      throw err
    }
    const prepared = this.launched
    this.launched = undefined
    this.active++
    const done = () => {
      if (prepared) this.backend.release(prepared)
      if (--this.active === 0 && this.closed) this.removeTmp()
    }
    // (releasePrepared and removeTmp do not throw: this runs as a promise reaction.)
    proc.then(done, done)
    return proc
  }

  spawn(file: string, args: readonly string[] | undefined, options: BufferRunOptions): SandboxProcess<Buffer>
  spawn(file: string, args?: readonly string[], options?: TextRunOptions): SandboxProcess
  spawn(file: string, args?: readonly string[], options?: RunOptions): SandboxProcess<string | Buffer>
  spawn(file: string, args: readonly string[] = [], options?: RunOptions): SandboxProcess<string | Buffer> {
    return this.track(() => startRun(this, [file, ...args], options, { compat: this.options.compat ?? 'best-effort', streams: true }))
  }

  run(command: readonly string[], options: BufferRunOptions): Promise<SandboxResult<Buffer>>
  run(command: readonly string[], options?: TextRunOptions): Promise<SandboxResult>
  run(command: readonly string[], options?: RunOptions): Promise<SandboxResult<string | Buffer>>
  run(command: readonly string[], options?: RunOptions): Promise<SandboxResult<string | Buffer>> {
    const once = () => this.track(() => startRun(this, command, options, { compat: this.options.compat ?? 'best-effort', streams: false }))
    // The host changed between planning and launch (a denied path vanished,
    // namespaces stopped working) and nothing ran: plan again, once. A
    // second failure is the caller's to see. (spawn() cannot do this: its
    // streams belong to the first launch.)
    return this.ready()
      .then(once)
      .catch((err: unknown) => {
        if (err instanceof SetupError && err.hostChanged && !options?.signal?.aborted) return once()
        throw err
      })
  }

  /**
   * Placeholders no run holds are released now; the private temp dir when the
   * last run has ended. Never while a command runs: it could swap a
   * directory in the temp dir for a symlink while the tree is being removed,
   * and the removal, walking by name, would delete the link's target as the
   * caller (red team: a root-owned file outside the write roots).
   */
  close(): void {
    this.closed = true
    this.backend.releaseIdle()
    if (this.active === 0) this.removeTmp()
  }

  /**
   * Never throws: it runs in a run's completion too, where an exception
   * would be an unhandled rejection (and end the caller). The command may
   * have left anything in the directory — symlinks out of it, directories
   * it made unwritable (chmod 500): removeOwnedDir walks by descriptor,
   * never follows a symlink, restores modes on the directories themselves,
   * and leaves what still cannot be removed.
   */
  private removeTmp(): void {
    const tmp = this.tmp
    this.tmp = undefined
    if (tmp) removeOwnedDir(tmp)
    this.network?.close()
  }
}

export type { PlatformSandbox }

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  return openSandbox(options)
}

/** createSandbox() with the internal face (recheckPaths): for the orchestrator's pool. */
export function openSandbox(options: SandboxOptions = {}): PlatformSandbox {
  return new PlatformSandbox(parseSandboxOptions(options))
}
