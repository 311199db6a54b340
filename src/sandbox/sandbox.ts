/**
 * createSandbox(): a sandbox is a profile bound to a cwd, a mode and a compat
 * choice. No global state: several sandboxes with different profiles can run
 * at once. Each run re-resolves the profile (paths are re-checked for planted
 * symlinks every time) and spawns one confined child.
 */
import { chmodSync, mkdtempSync, readdirSync, rmdirSync, rmSync } from 'node:fs'
import { tmpdir as osTmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { UnsupportedError } from '../errors.js'
import { loadProfile, DEFAULT_PROFILE } from '../profile/profiles.js'
import { resolvePolicy, type ResolvedPolicy } from '../profile/resolve.js'
import type { CanonCache } from '../profile/paths.js'
import type { Profile, ProfileInput } from '../profile/schema.js'
import { prepareLinux, releaseIdlePlaceholders, releasePrepared } from '../platform/linux/index.js'
import type { Prepared } from '../platform/backend.js'
import { checkCompat } from './compat.js'
import type { Enforcement } from './enforcement.js'
import { parseSandboxOptions, type ParsedSandboxOptions, type SandboxOptions } from './options.js'
import { startRun, type RunOptions, type SandboxProcess } from './run.js'
import type { SandboxResult } from './result.js'

export interface Sandbox {
  /** Run a command to completion: `run(['npm', 'test'], { timeout })`. */
  run(command: readonly string[], options?: RunOptions): Promise<SandboxResult>
  /** Start a command and stream it: `spawn('sh', ['-c', '…'])`. Awaitable like execa's subprocess. */
  spawn(file: string, args?: readonly string[], options?: RunOptions): SandboxProcess
  /** What would be enforced here, without running anything. */
  report(): Enforcement
  /** Remove the sandbox's private temp dir. */
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

class LinuxSandbox implements Sandbox {
  readonly cwd: string
  readonly profileName: string
  private readonly profile: Profile
  private readonly explicit: Set<string>
  private readonly baseEnv: NodeJS.ProcessEnv
  private tmp: string | undefined
  /** The launch prepare() planned last, until track() takes it. */
  private launched: Prepared | undefined
  private readonly canonCache: CanonCache = new Map()
  /** Runs started and not yet ended: the temp dir is removed only when none is left (close()). */
  private active = 0
  private closed = false

  constructor(private readonly options: ParsedSandboxOptions) {
    this.cwd = resolve(options.cwd ?? process.cwd())
    const spec = options.profile ?? DEFAULT_PROFILE
    const loaded = loadProfile(spec as string | ProfileInput)
    this.profileName = typeof spec === 'string' ? spec : (loaded.name ?? 'custom')
    const { profile, explicitProtected } = mergeProfile(loaded, options)
    this.profile = profile
    this.explicit = new Set(explicitProtected ? ['protected-paths'] : [])
    this.baseEnv = { ...(options.env ?? process.env) }
    // Validate paths and cwd now, so bad input fails at creation and nothing runs;
    // a caller that gets no sandbox cannot close() it, so its temp dir goes now.
    try { this.resolve() } catch (err) { this.removeTmp(); throw err }
  }

  private tmpdir(): string {
    this.tmp ??= mkdtempSync(join(osTmpdir(), 'cordon-'))
    return this.tmp
  }

  private resolve(): ResolvedPolicy {
    return resolvePolicy({ profile: this.profile, profileName: this.profileName, cwd: this.cwd, tmpdir: this.tmpdir(), baseEnv: this.baseEnv, cache: this.canonCache })
  }

  /** Resolve and plan one launch; throws typed errors before anything runs. */
  prepare(): { prepared: Prepared; policy: ResolvedPolicy } {
    if (process.platform !== 'linux') {
      throw new UnsupportedError('sandbox backend', 'linux', process.platform, 'the macOS and Windows backends ship in a later version')
    }
    const policy = this.resolve()
    const prepared = prepareLinux(this.options.mode, { policy, explicit: this.explicit, bwrap: this.options.bwrap })
    try {
      checkCompat(prepared.enforcement, this.options.compat, policy.unsandboxed)
    } catch (err) {
      releasePrepared(prepared)
      throw err
    }
    this.launched = prepared
    return { prepared, policy }
  }

  report(): Enforcement {
    const policy = this.resolve()
    return prepareLinux(this.options.mode, { policy, explicit: this.explicit, bwrap: this.options.bwrap }, { materialize: false }).enforcement
  }

  /** Start one run; what its launch holds (namespace-mode placeholder leases) is given back when it ends. */
  private track<T extends Promise<unknown>>(start: () => T): T {
    this.launched = undefined
    let proc: T
    try {
      proc = start()
    } catch (err) {
      if (this.launched) releasePrepared(this.launched)
      this.launched = undefined
      if (this.closed && this.active === 0) this.removeTmp() // a run after close() that never started
      throw err
    }
    const prepared = this.launched
    this.launched = undefined
    this.active++
    const done = () => {
      if (prepared) releasePrepared(prepared)
      if (--this.active === 0 && this.closed) this.removeTmp()
    }
    // (releasePrepared and removeTmp do not throw: this runs as a promise reaction.)
    proc.then(done, done)
    return proc
  }

  spawn(file: string, args: readonly string[] = [], options?: RunOptions): SandboxProcess {
    return this.track(() => startRun(this, [file, ...args], options, this.options.compat ?? 'best-effort'))
  }

  run(command: readonly string[], options?: RunOptions): Promise<SandboxResult> {
    return Promise.resolve().then(() => this.track(() => startRun(this, command, options, this.options.compat ?? 'best-effort')))
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
    releaseIdlePlaceholders()
    if (this.active === 0) this.removeTmp()
  }

  /**
   * Never throws: it runs in a run's completion too, where an exception
   * would be an unhandled rejection (and end the caller). A command can
   * leave directories it made unwritable (chmod 500): those are made
   * writable again, directory by directory without following symlinks,
   * and the removal retried; what still cannot be removed is left.
   */
  private removeTmp(): void {
    const tmp = this.tmp
    this.tmp = undefined
    if (!tmp) return
    try {
      // Usually empty: one rmdir, without loading Node's recursive remover (~1.5 ms of a CLI run).
      rmdirSync(tmp)
      return
    } catch {
      /* not empty (or gone): the recursive removal below */
    }
    try {
      rmSync(tmp, { recursive: true, force: true })
    } catch {
      try {
        ownerWritable(tmp)
        rmSync(tmp, { recursive: true, force: true })
      } catch {
        /* left behind: nothing else can be done without following links */
      }
    }
  }
}

/** u+rwx on `dir` and every directory below it (symlinks are not followed: Dirent says what the entry itself is). */
function ownerWritable(dir: string): void {
  chmodSync(dir, 0o700)
  for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) ownerWritable(join(dir, e.name))
}

export type { LinuxSandbox }

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  return new LinuxSandbox(parseSandboxOptions(options))
}
