/**
 * The filesystem of a namespace-mode sandbox, as a list of mount operations
 * (bwrap-args.ts turns them into bwrap options, in this order):
 *
 *  1. the host read-only (`--ro-bind / /`), a minimal /dev, a fresh /proc;
 *  2. private tmpfs on /tmp and /var/tmp unless a write root covers them;
 *     kernel internals masked by an empty read-only tmpfs (/sys/kernel:
 *     vmcoreinfo gives away the kernel's physical load address to any
 *     reader, a KASLR bypass; debug, tracing, security, slab and btf are
 *     more of the same) unless the profile names them as a read root;
 *  3. each write root bound read-write;
 *  4. "pins": every existing directory between a write root and a protected
 *     or denied path is bound onto itself. A mount point cannot be renamed or
 *     removed (EBUSY), so the sandbox cannot `mv .git .old && mkdir .git` to
 *     step around a mask that sits below it;
 *  5. protected paths: existing ones bound read-only onto themselves, missing
 *     ones as an empty read-only directory on a placeholder (so they cannot
 *     be created);
 *  6. denied paths, last so they win: directories (and missing paths in
 *     writable roots) become an empty tmpfs with mode 000, files are covered
 *     by /dev/null bound without device access — both answer EACCES.
 *
 * Paths are canonical (profile/resolve.ts refused symlinks in writable roots);
 * a symlink found here means something changed since, and the launch stops.
 */
import { lstatSync, readdirSync } from 'node:fs'
import { join, sep } from 'node:path'
import { PolicyError } from '../../../errors.js'
import { isWithin } from '../../../profile/paths.js'
import { holdsPlaceholder, isPlaceholder } from './bwrap-placeholders.js'

export type MountOp =
  | { kind: 'tmpfs'; path: string } //            private, writable
  | { kind: 'bind'; path: string } //             write root, or a pin
  | { kind: 'ro-bind'; path: string } //          existing protected path
  | { kind: 'ro-placeholder'; path: string } //   missing protected path
  | { kind: 'deny-dir'; path: string } //         denied directory or missing denied path
  | { kind: 'deny-file'; path: string } //        denied file (or socket, fifo…)
  | { kind: 'mask'; path: string } //             host internals: an empty read-only directory

export interface MountPlan {
  ops: MountOp[]
  /** Host directories to create (with a lease) before the launch. */
  placeholders: string[]
  /** Private tmpfs mounts (writable inside, gone after the run). */
  privateDirs: string[]
  /** Host directories shown empty. */
  masked: string[]
}

export interface MountInput {
  writeRoots: readonly string[]
  protectedPaths: readonly string[]
  denyRead: readonly string[]
  /** Paths that must stay visible (read-only) even inside a private tmpfs: the cwd. */
  visible?: readonly string[]
  /** The profile's read roots: a mask is left out when one of them lies at or below it. */
  readRoots?: readonly string[]
}

const PRIVATE_CANDIDATES = ['/tmp', '/var/tmp']
/** Host directories no command needs and an attacker wants (see 2. above). */
const MASK_CANDIDATES = ['/sys/kernel']

type Existing = 'dir' | 'file' | 'missing' | 'placeholder'

/**
 * What is at `path` now. Placeholders only ever exist inside write roots, so
 * only there is a directory opened to tell one apart (`inWriteRoot`): /tmp,
 * checked for every launch, can hold thousands of entries.
 */
function existing(path: string, inWriteRoot = true): Existing {
  // Held by this process: it is ours (resolvePolicy has just re-checked the way to it for symlinks).
  if (holdsPlaceholder(path)) return 'placeholder'
  let st
  try {
    st = lstatSync(path, { throwIfNoEntry: false })
  } catch {
    return 'missing'
  }
  if (!st) return 'missing'
  if (st.isSymbolicLink()) throw new PolicyError(`${path} became a symlink after it was checked; refusing to mount onto it`, { where: 'namespace mode' })
  if (!st.isDirectory()) return 'file'
  return inWriteRoot && isPlaceholder(path) ? 'placeholder' : 'dir'
}

const depth = (p: string) => p.split(sep).length

/** Entries looked at below one protected directory for hard links (protected trees are small: hooks, editor tasks). */
const LINK_SCAN_LIMIT = 4096

/**
 * A file of a protected path that also has another name (a hard link): a
 * read-only bind covers one name only, so writing through the other would
 * change it. Such links can only have been made while the path was not
 * protected — by an earlier run before `git init`, say — and that is how
 * they get used: the launch refuses. Undefined when there is none.
 */
function linkedFile(path: string, budget = { left: LINK_SCAN_LIMIT }): { path: string; links: number } | undefined {
  const st = lstatSync(path)
  if (st.isFile()) return st.nlink > 1 ? { path, links: st.nlink } : undefined
  if (!st.isDirectory()) return undefined
  for (const e of readdirSync(path, { withFileTypes: true })) {
    // Fail closed: a tree too large to check is not mounted as if it had been checked.
    if (--budget.left < 0) throw new PolicyError(`the protected path ${path} holds more than ${LINK_SCAN_LIMIT} entries: too many to check for hard links`, { where: 'namespace mode' })
    const hit = e.isFile() || e.isDirectory() ? linkedFile(join(path, e.name), budget) : undefined
    if (hit) return hit
  }
  return undefined
}

/** Refuse a protected path with a hard-linked file (see linkedFile); a path that changes under the check is refused too. */
function checkLinks(path: string): void {
  let linked
  try {
    linked = linkedFile(path)
  } catch (err) {
    if (err instanceof PolicyError) throw err
    throw new PolicyError(`the protected path ${path} changed while cordon checked it for hard links: ${(err as Error).message}`, { where: 'namespace mode', cause: err })
  }
  if (linked) {
    throw new PolicyError(
      `the protected file ${linked.path} has ${linked.links} hard links: another name for it could change it from inside the sandbox ` +
        '(made while it was not protected, by an earlier sandboxed command perhaps); remove the other links (find -samefile) and run again',
      { where: 'namespace mode' },
    )
  }
}

/** The directories strictly between `root` and `path`, top-down. */
function between(root: string, path: string): string[] {
  const rest = path.slice(root === '/' ? 1 : root.length + 1).split(sep)
  const out: string[] = []
  for (let i = 1; i < rest.length; i++) out.push(join(root, ...rest.slice(0, i)))
  return out
}

/** First component of `path` below `root` that does not exist, or is a placeholder already. */
function firstMissing(root: string, path: string): string {
  for (const dir of between(root, path)) {
    const k = existing(dir)
    if (k === 'missing' || k === 'placeholder') return dir
  }
  return path
}

class Planner {
  readonly pins = new Set<string>()
  readonly protectedOps: MountOp[] = []
  readonly denyOps: MountOp[] = []
  readonly placeholders = new Set<string>()
  constructor(
    private readonly writeRoots: readonly string[],
    private readonly privateDirs: readonly string[],
  ) {}

  rootOf(p: string): string | undefined {
    return this.writeRoots.find((w) => isWithin(p, w))
  }

  /** Seen from the sandbox at its host path: in a write root, or outside the private tmpfs mounts. */
  hostVisible(p: string): boolean {
    return this.rootOf(p) !== undefined || !this.privateDirs.some((d) => isWithin(p, d))
  }

  /** Pin the directories above `target` inside its write root; returns the mount point to use. */
  private anchor(root: string, target: string): { at: string; kind: Existing } {
    const at = firstMissing(root, target)
    for (const dir of between(root, at)) this.pins.add(dir)
    return { at, kind: existing(at) }
  }

  protect(p: string): void {
    const root = this.rootOf(p)
    if (!root) return // outside every write root: read-only already
    if (p === root) {
      checkLinks(p)
      return void this.protectedOps.push({ kind: 'ro-bind', path: p })
    }
    const { at, kind } = this.anchor(root, p)
    if (kind === 'dir' || kind === 'file') {
      checkLinks(at)
      this.protectedOps.push({ kind: 'ro-bind', path: at })
    }
    else {
      this.placeholders.add(at)
      this.protectedOps.push({ kind: 'ro-placeholder', path: at })
    }
  }

  deny(p: string): void {
    if (!this.hostVisible(p)) return // inside a private tmpfs: the host's copy is not there
    const root = this.rootOf(p)
    if (!root) {
      const k = existing(p, false)
      if (k !== 'missing') this.denyOps.push({ kind: k === 'file' ? 'deny-file' : 'deny-dir', path: p })
      return // missing outside write roots: nothing in the sandbox can create it
    }
    const { at, kind } = p === root ? { at: p, kind: existing(p) } : this.anchor(root, p)
    if (kind === 'missing' || kind === 'placeholder') this.placeholders.add(at)
    this.denyOps.push({ kind: kind === 'file' ? 'deny-file' : 'deny-dir', path: at })
  }
}

function covered(p: string, by: readonly MountOp[]): boolean {
  return by.some((o) => o.path !== p && isWithin(p, o.path))
}

export function planMounts(input: MountInput): MountPlan {
  const privateDirs = PRIVATE_CANDIDATES.filter((d) => !input.writeRoots.some((w) => isWithin(d, w)) && existing(d, false) === 'dir')
  const pl = new Planner(input.writeRoots, privateDirs)
  for (const p of input.protectedPaths) pl.protect(p)
  for (const p of input.denyRead) pl.deny(p)
  const byDepth = (a: MountOp, b: MountOp) => depth(a.path) - depth(b.path)
  // A mask below another mask (or a read-only protected tree) adds nothing.
  const deny = pl.denyOps.filter((o) => !covered(o.path, pl.denyOps)).sort(byDepth)
  const prot = pl.protectedOps.filter((o) => !covered(o.path, pl.protectedOps) && !covered(o.path, deny) && !deny.some((d) => d.path === o.path)).sort(byDepth)
  const targets = [...prot, ...deny]
  const pins = [...pl.pins].filter((p) => !targets.some((t) => isWithin(p, t.path))).map((path): MountOp => ({ kind: 'bind', path })).sort(byDepth)
  const roots = [...input.writeRoots].sort((a, b) => depth(a) - depth(b)).map((path): MountOp => ({ kind: 'bind', path }))
  const used = new Set(targets.map((t) => t.path))
  // A read-only cwd under /tmp would vanish behind the private tmpfs (chdir: ENOENT).
  const visible = (input.visible ?? [])
    .filter((p) => privateDirs.some((d) => isWithin(p, d) && p !== d) && !input.writeRoots.some((w) => isWithin(p, w)) && existing(p, false) === 'dir')
    .map((path): MountOp => ({ kind: 'ro-bind', path }))
  const masks = MASK_CANDIDATES.filter((m) => !(input.readRoots ?? []).some((r) => isWithin(r, m)) && !input.writeRoots.some((w) => isWithin(m, w) || isWithin(w, m)) && existing(m, false) === 'dir')
  return {
    ops: [...privateDirs.map((path): MountOp => ({ kind: 'tmpfs', path })), ...masks.map((path): MountOp => ({ kind: 'mask', path })), ...visible, ...roots, ...pins, ...prot, ...deny],
    placeholders: [...pl.placeholders].filter((p) => used.has(p)),
    privateDirs,
    masked: masks,
  }
}
