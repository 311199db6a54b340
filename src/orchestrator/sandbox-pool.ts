/**
 * The sandboxes of an orchestrator's attempts. A new sandbox per attempt
 * cost more than the orchestrator's whole decision (its private $TMPDIR
 * made and removed, the profile resolved once more to validate it: ~0.9 ms
 * of a 6 ms exec of /bin/true), so attempts whose createSandbox() options
 * are the same plain data share one sandbox while it is in use, and for
 * IDLE_MS after.
 *
 * What is shared, and why that is sound:
 *  - The options, and what the sandbox reads from the process when it is
 *    made (process.cwd() without `cwd`, process.env without `env`,
 *    os.tmpdir()): all part of the key, so a sandbox is never handed out
 *    for anything it was not made from. Options that are not plain data —
 *    a function (a network allowlist's approver callbacks, bound to one
 *    exec), a class instance — and a profile file (read when the sandbox
 *    is made; a new sandbox reads it again) are never shared: each such
 *    attempt gets a sandbox of its own, closed when it ends, as before.
 *  - The sandbox's $TMPDIR: a later command sees what an earlier one left
 *    there. Every command that can see it ran with the same options, so
 *    with the same rights: what it could leave in $TMPDIR it could leave in
 *    the workspace's write roots as well. A wider attempt has other options
 *    and so its own sandbox and its own $TMPDIR — and since a kept $TMPDIR
 *    outlives the command that wrote it, the orchestrator counts it as a
 *    write root when it looks for what a wider attempt must not trust
 *    (tmpDirs(): planted git repositories, PATH entries).
 *  - Nothing else that decides what a command may touch: each launch
 *    resolves the profile again (write roots, cwd, deny globs) and plans
 *    again (protected paths, planted repositories). The one thing a sandbox
 *    keeps from one run to the next — the canonical forms of paths outside
 *    its write roots (profile/paths.ts CanonCache) — is checked again each
 *    time the sandbox is handed out (recheckPaths: what the filesystem no
 *    longer says is dropped), because the host or a wider attempt may have
 *    changed them since; so each attempt sees the filesystem as a new
 *    sandbox would.
 *
 * Lifetime: a sandbox is closed IDLE_MS after its last holder let go — the
 * attempt, or the process it left running (`retain`: a unified-exec
 * session) — and never while one holds it (close() also waits for the
 * sandbox's own runs). A process that exits first removes what is left
 * (platform/owned-dirs.ts).
 */
import { tmpdir } from 'node:os'
import { hostFacts, type EnvironmentRead } from '../platform/index.js'
import { BUILTIN_PROFILES } from '../profile/profiles.js'
import type { Sandbox } from '../sandbox/sandbox.js'
import type { SandboxOptions } from '../sandbox/options.js'

/** A sandbox that can be told to look at the filesystem afresh, and names its private $TMPDIR (sandbox.ts PlatformSandbox). */
export interface ReusableSandbox extends Sandbox {
  recheckPaths(): void
  privateTmp(): string | undefined
}

export interface Lease {
  readonly sandbox: Sandbox
  /** Let go of the sandbox; the first call counts, later ones do nothing. */
  release(): void
}

/** How long an unused sandbox is kept for the next attempt: an agent's next step is seconds away. */
export const IDLE_MS = 30_000
/** At most this many kept sandboxes; past it, an attempt with new options gets one of its own. */
export const MAX_KEPT = 8

interface Entry {
  readonly sandbox: ReusableSandbox
  holders: number
  idle: ReturnType<typeof setTimeout> | undefined
  /** Made for this acquire: its paths were looked at just now, in the same call. */
  fresh: boolean
}

class NotPlain extends Error {}

/** JSON, refusing what JSON would silently drop or flatten: functions, class instances, symbols, bigints. */
function plainJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value, (_k, v: unknown) => {
      if (typeof v === 'function' || typeof v === 'symbol' || typeof v === 'bigint') throw new NotPlain()
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
        const proto = Object.getPrototypeOf(v) as unknown
        if (proto !== Object.prototype && proto !== null) throw new NotPlain()
      }
      return v
    })
  } catch (e) {
    if (e instanceof NotPlain) return undefined
    throw e
  }
}

/**
 * The options as the sandbox would be made from them now — with the cwd
 * and the environment it would read from the process — and their key, or
 * undefined when they cannot be shared.
 */
export function sharedOptions(options: SandboxOptions): { key: string; pinned: () => SandboxOptions } | undefined {
  const profile = options.profile
  if (typeof profile === 'string' && !(BUILTIN_PROFILES as readonly string[]).includes(profile)) return undefined
  const cwd = options.cwd ?? process.cwd()
  const env = options.env === undefined ? readEnvironment() : undefined
  // os.tmpdir(), where the sandbox's $TMPDIR is made, is a function of TMPDIR, TMP and TEMP: part of `env` when that is given.
  const head = plainJson([options, cwd, env === undefined ? tmpdir() : null])
  if (head === undefined) return undefined
  // The environment's key goes in as it is: not escaped into a second JSON string.
  const key = env === undefined ? head : `${head}\n${env.key}`
  // The sandbox gets the environment of the very read its key came from (never a second read).
  return { key, pinned: () => ({ ...options, cwd, env: env === undefined ? options.env : env.variables() }) }
}

/**
 * process.env read once, as a key and the variables of that read: the
 * backend's one-call read where it has one (Linux: 0.04–0.15 ms of every
 * attempt less than reading each variable through process.env, with the
 * number of variables and the state of the caches), else the values' JSON
 * (strings: kept exactly).
 */
function readEnvironment(): EnvironmentRead {
  const read = hostFacts()?.environment()
  if (read) return read
  const json = JSON.stringify(process.env)
  return { key: json, variables: () => JSON.parse(json) as Record<string, string> }
}

export class SandboxPool {
  private readonly kept = new Map<string, Entry>()

  constructor(
    private readonly make: (options: SandboxOptions) => ReusableSandbox,
    private readonly idleMs = IDLE_MS,
  ) {}

  /** A sandbox for an attempt with these options; throws what createSandbox() throws. */
  acquire(options: SandboxOptions): Lease {
    const shared = sharedOptions(options)
    const entry = shared && (this.kept.get(shared.key) ?? this.keep(shared.key, shared.pinned()))
    if (!entry) return ownLease(this.make(options))
    if (entry.idle) clearTimeout(entry.idle)
    entry.idle = undefined
    if (!entry.fresh) entry.sandbox.recheckPaths()
    entry.fresh = false
    entry.holders++
    return { sandbox: entry.sandbox, release: once(() => this.letGo(shared.key, entry)) }
  }

  /** A new kept sandbox, or undefined when MAX_KEPT are kept already (the attempt gets its own). */
  private keep(key: string, options: SandboxOptions): Entry | undefined {
    if (this.kept.size >= MAX_KEPT) return undefined
    const entry: Entry = { sandbox: this.make(options), holders: 0, idle: undefined, fresh: true }
    this.kept.set(key, entry)
    return entry
  }

  /**
   * The private $TMPDIR of each kept sandbox: a write root of its commands
   * that outlives each of them, so a later, wider attempt must count what
   * is in it as written by a sandboxed command (orchestrator.ts writeRoots).
   */
  tmpDirs(): string[] {
    const dirs: string[] = []
    for (const e of this.kept.values()) {
      const d = e.sandbox.privateTmp()
      if (d !== undefined) dirs.push(d)
    }
    return dirs
  }

  private letGo(key: string, entry: Entry): void {
    if (--entry.holders > 0) return
    entry.idle = setTimeout(() => {
      if (entry.holders > 0 || this.kept.get(key) !== entry) return
      this.kept.delete(key)
      entry.sandbox.close()
    }, this.idleMs)
    // A kept sandbox never keeps the process alive; at exit its $TMPDIR goes with the rest (owned-dirs.ts).
    entry.idle.unref?.()
  }
}

/** A sandbox of one attempt's own: closed when let go of. */
export function ownLease(sandbox: Sandbox): Lease {
  return { sandbox, release: once(() => sandbox.close()) }
}

function once(f: () => void): () => void {
  let done = false
  return () => {
    if (done) return
    done = true
    f()
  }
}
