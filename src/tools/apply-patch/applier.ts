/**
 * The apply_patch helper: the one program that writes a patch. It runs
 * INSIDE the sandbox the orchestrator chose for the attempt (`node
 * dist/tools/apply-patch/applier.js`, the verified plan as JSON on stdin),
 * so every write it makes is one the sandbox allows — the unconfined Node
 * process never writes a patched file.
 *
 * It carries out the steps in order and prints one JSON line per step as
 * soon as the step is done or has failed, then stops at the first failure:
 * what it printed is exactly what was applied, even if it is killed
 * half-way. A step checks the file first: an overwrite or removal only
 * when the file still has the SHA-256 the approver was shown, a creation
 * only when nothing is there (O_EXCL). A file is replaced by writing a
 * temporary file beside it and renaming it over (no half-written file),
 * keeping its permission bits — or in place when the sandbox refuses a new
 * entry in its directory but allows writing the file itself.
 *
 * It writes only the exact paths of the plan (the canonical ones the
 * approver saw): a directory on the way that was turned into a symlink, or
 * a file swapped for a link, a FIFO or anything but a regular file after
 * approval fails the step (`EREDIRECT`, `ECHANGED`) — see Dir below.
 *
 * Self-contained on purpose (node: modules only): it is started by path
 * and must not load the rest of cordon inside the sandbox.
 */
import { createHash, randomBytes } from 'node:crypto'
import { closeSync, constants, fstatSync, ftruncateSync, lstatSync, mkdirSync, openSync, readFileSync, readlinkSync, realpathSync, renameSync, unlinkSync, writeSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'

/** One step of the plan (steps.ts makes them). */
export type ApplierStep =
  | {
      readonly op: 'write'
      readonly path: string
      readonly content: string
      readonly expect: 'absent' | { readonly sha256: string }
      /** A move's new file: its source must still be the verified text, or the new file would be made from a stale one. */
      readonly source?: { readonly path: string; readonly sha256: string }
    }
  | { readonly op: 'remove'; readonly path: string; readonly expect: { readonly sha256: string } }

export interface ApplierInput {
  readonly version: 1
  readonly steps: readonly ApplierStep[]
}

/** One line of output per step. */
export interface ApplierLine {
  readonly step: number
  readonly status: 'applied' | 'failed'
  readonly error?: { readonly code: string; readonly syscall?: string; readonly message: string }
}

class StepError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

function digest(buf: Buffer): string {
  return createHash('sha256').update(buf).digest('hex')
}

// Flags a platform lacks are 0 (Windows has no O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY).
const { O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_EXCL } = constants
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0
const O_NONBLOCK = constants.O_NONBLOCK ?? 0
const O_DIRECTORY = constants.O_DIRECTORY ?? 0
/** Linux's O_PATH (not in fs.constants): a handle that only names a directory, opened without any read right on it. */
const O_PATH = 0o10000000

const codeOf = (e: unknown) => (e as NodeJS.ErrnoException)?.code

/** `path` no longer leads where the approver was shown: refused, with where it leads now (`real`, else its real path). */
function changed(path: string, real?: string): StepError {
  let to = real
  try {
    to ??= realpathSync(path)
  } catch {
    /* a dangling link, or gone */
  }
  const now = to === undefined || to === path ? 'it is no longer what was approved' : `it now leads to ${to}`
  return new StepError('EREDIRECT', `${path} changed after approval: ${now}; nothing written there`)
}

/**
 * A directory of the plan, held for one step: every name in it is given
 * by name(). The paths of the plan are the canonical ones the approver
 * saw, but a sandboxed command may turn a directory on the way into a
 * symlink while the approval is pending: a write through it would land
 * wherever the link points — inside a write root widened for another file
 * of the patch, say (red team F2: ws/sub → a widened root, so the approved
 * ws/sub/run.sh became outside/run.sh). So a directory is reached without
 * following any link, and a mismatch fails the step before anything is
 * written there.
 */
interface Dir {
  readonly path: string
  /** What to give a syscall for the entry `base` of this directory. */
  name(base: string): string
  /** Throws when the directory is no longer at `path` (moved since it was reached). */
  check(): void
  close(): void
}

/** `fn` on the entry `base` of `d` (see named()). */
function inDir<T>(d: Dir, base: string, fn: (p: string) => T): T {
  return named(d.name(base), join(d.path, base), fn)
}

/** `fn(p)`, where `p` names the planned path `shown`: an errno error says `shown`, not the name given to the syscall. */
function named<T>(p: string, shown: string, fn: (p: string) => T): T {
  try {
    return fn(p)
  } catch (e) {
    const x = e as NodeJS.ErrnoException
    // O_NOFOLLOW refused a final symlink: the entry was swapped for a link after approval.
    if (x.code === 'ELOOP') throw changed(shown)
    if (typeof x.message === 'string' && p !== shown) x.message = x.message.split(p).join(shown)
    throw e
  }
}

const fdPath = (fd: number) => `/proc/self/fd/${fd}`

/** Where the kernel says `fd` is; undefined without a usable /proc. */
function kernelName(fd: number): string | undefined {
  try {
    return readlinkSync(fdPath(fd))
  } catch {
    return undefined
  }
}

/**
 * Linux: the directory as an O_PATH descriptor, reached from / one
 * component at a time (O_NOFOLLOW|O_DIRECTORY: a symlink is refused, not
 * followed), creating missing ones in the directory held; names in it are
 * /proc/self/fd/N/NAME, which the kernel resolves in that very directory —
 * no rename or symlink along the path afterwards can send a write elsewhere.
 * The kernel's name for it (readlink of /proc/self/fd/N) must be the
 * planned path: a directory moved while it was walked is refused.
 */
function pinnedDir(path: string, create: boolean): Dir {
  let fd = openSync('/', O_PATH | O_DIRECTORY)
  const at = () => readlinkSync(fdPath(fd))
  try {
    if (kernelName(fd) !== '/') throw new StepError('ENOPROC', `${path}: /proc is not usable in the sandbox, so the helper cannot hold directories; nothing written there`)
    let here = '/'
    for (const part of path.split('/').filter(Boolean)) {
      const child = openChild(fd, part, join(here, part), create)
      closeSync(fd)
      fd = child
      here = join(here, part)
    }
    const real = at()
    if (real !== path) throw changed(path, real)
  } catch (e) {
    closeSync(fd)
    throw e
  }
  return {
    path,
    name: (base) => `${fdPath(fd)}/${base}`,
    check: () => {
      const real = at()
      if (real !== path) throw changed(path, real)
    },
    close: () => closeSync(fd),
  }
}

/** The directory `part` in the directory held by `parent` (made when missing and `create`); never a symlink. */
function openChild(parent: number, part: string, path: string, create: boolean): number {
  const p = `${fdPath(parent)}/${part}`
  const open = () => named(p, path, () => openSync(p, O_PATH | O_DIRECTORY | O_NOFOLLOW))
  try {
    return open()
  } catch (e) {
    if (codeOf(e) === 'ENOTDIR') throw changed(path)
    if (codeOf(e) !== 'ENOENT' || !create) throw e
  }
  try {
    named(p, path, () => mkdirSync(p))
  } catch (e) {
    if (codeOf(e) !== 'EEXIST') throw e // made meanwhile: open() decides what it is
  }
  try {
    return open()
  } catch (e) {
    throw codeOf(e) === 'ENOTDIR' ? changed(path) : e
  }
}

/**
 * Elsewhere (no /proc): the path itself, missing directories made one at
 * a time, each after its parent's real path was checked, and the real
 * path checked again before each change. A narrower guard (a swap between
 * the check and the syscall is not caught), as good as the platform allows
 * without openat().
 */
function checkedDir(path: string, create: boolean): Dir {
  const check = () => {
    if (realpathSync(path) !== path) throw changed(path)
  }
  if (create) makeDirs(path)
  check()
  return { path, name: (base) => join(path, base), check, close: () => {} }
}

function makeDirs(path: string): void {
  const missing: string[] = []
  for (let p = path; !exists(p) && dirname(p) !== p; p = dirname(p)) missing.unshift(p)
  for (const p of missing) {
    if (realpathSync(dirname(p)) !== dirname(p)) throw changed(dirname(p))
    mkdirSync(p)
  }
}

function exists(path: string): boolean {
  try {
    lstatSync(path)
    return true
  } catch {
    return false
  }
}

function dirOf(path: string, create: boolean): Dir {
  return process.platform === 'linux' ? pinnedDir(dirname(path), create) : checkedDir(dirname(path), create)
}

/** `fn` with the directory of `path` held, released after. */
function withDir<T>(path: string, create: boolean, fn: (d: Dir, base: string) => T): T {
  const d = dirOf(path, create)
  try {
    return fn(d, basename(path))
  } finally {
    d.close()
  }
}

/**
 * Opens a file of the plan that must be a regular file: never through a
 * final symlink, and without blocking — a FIFO swapped in after
 * verification would otherwise hang the helper, and the call with it (red
 * team F4); fstat then refuses anything but a regular file.
 */
function openRegular(d: Dir, base: string, flags: number): { fd: number; mode: number } {
  const fd = inDir(d, base, (p) => openSync(p, flags | O_NOFOLLOW | O_NONBLOCK))
  const st = fstatSync(fd)
  if (st.isFile()) return { fd, mode: st.mode & 0o7777 }
  closeSync(fd)
  throw new StepError('ECHANGED', `${join(d.path, base)} is no longer a regular file; nothing written to it`)
}

/** The open file must still be what was verified (another process may have changed it since). */
function checkDigest(fd: number, path: string, sha256: string): void {
  if (digest(readFileSync(fd)) !== sha256) throw new StepError('ECHANGED', `${path} changed after the patch was verified; nothing written to it`)
}

/** The file is still the verified text; returns its permission bits. */
function checkUnchanged(d: Dir, base: string, sha256: string): number {
  const { fd, mode } = openRegular(d, base, O_RDONLY)
  try {
    checkDigest(fd, join(d.path, base), sha256)
    return mode
  } finally {
    closeSync(fd)
  }
}

/** All of `content`: to a file from offset 0 (`file`: the digest read moved its position to the end), else where the fd is (stdout, a pipe). */
function writeAll(fd: number, content: string, file = true): void {
  const buf = Buffer.from(content, 'utf8')
  for (let off = 0; off < buf.length; ) off += writeSync(fd, buf, off, buf.length - off, file ? off : null)
}

function create(d: Dir, base: string, content: string, mode: number): void {
  d.check()
  // O_EXCL: only a file this step makes (never one that appeared, nor through a link).
  const fd = inDir(d, base, (p) => openSync(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode))
  try {
    writeAll(fd, content)
  } finally {
    closeSync(fd)
  }
}

const REFUSED = new Set(['EACCES', 'EPERM', 'EROFS'])

function overwrite(d: Dir, base: string, content: string, sha256: string): void {
  d.check()
  const { fd } = openRegular(d, base, O_RDWR)
  try {
    checkDigest(fd, join(d.path, base), sha256)
    ftruncateSync(fd, 0)
    writeAll(fd, content)
  } finally {
    closeSync(fd)
  }
}

function replace(d: Dir, base: string, content: string, sha256: string): void {
  const mode = checkUnchanged(d, base, sha256)
  const temp = `.${base}.cordon-patch-${randomBytes(6).toString('hex')}`
  try {
    create(d, temp, content, mode)
  } catch (e) {
    // A directory that refuses new entries but lets this file be written
    // (Landlock mode narrows a directory around a denied read: rights per
    // existing entry): write the file in place, as the sandbox allows.
    if (!REFUSED.has(codeOf(e) ?? '')) throw e
    return overwrite(d, base, content, sha256)
  }
  try {
    d.check()
    inDir(d, temp, (from) => inDir(d, base, (to) => renameSync(from, to)))
  } catch (e) {
    inDir(d, temp, (p) => unlinkSync(p))
    throw e
  }
}

function write(step: Extract<ApplierStep, { op: 'write' }>): void {
  const source = step.source
  if (source) withDir(source.path, false, (d, base) => checkUnchanged(d, base, source.sha256))
  const expect = step.expect
  if (expect === 'absent') return withDir(step.path, true, (d, base) => create(d, base, step.content, 0o666))
  withDir(step.path, false, (d, base) => replace(d, base, step.content, expect.sha256))
}

function remove(d: Dir, base: string, sha256: string): void {
  checkUnchanged(d, base, sha256)
  d.check()
  inDir(d, base, (p) => unlinkSync(p))
}

function run(step: ApplierStep): void {
  if (step.op === 'write') return write(step)
  withDir(step.path, false, (d, base) => remove(d, base, step.expect.sha256))
}

function errorOf(e: unknown): NonNullable<ApplierLine['error']> {
  const x = e as NodeJS.ErrnoException
  return { code: typeof x.code === 'string' ? x.code : 'EUNKNOWN', ...(x.syscall ? { syscall: x.syscall } : {}), message: String(x.message ?? e) }
}

/** Apply the steps in order, calling `emit` after each; stops at the first failure. Returns the number applied. */
export function applySteps(steps: readonly ApplierStep[], emit: (line: ApplierLine) => void): number {
  for (let i = 0; i < steps.length; i++) {
    try {
      run(steps[i] as ApplierStep)
    } catch (e) {
      emit({ step: i, status: 'failed', error: errorOf(e) })
      return i
    }
    emit({ step: i, status: 'applied' })
  }
  return steps.length
}

function main(): void {
  const input = JSON.parse(readFileSync(0, 'utf8')) as ApplierInput
  if (input?.version !== 1 || !Array.isArray(input.steps)) {
    process.stderr.write('cordon apply_patch helper: unsupported input\n')
    process.exit(2)
  }
  // Written synchronously, line by line: a kill after a step still leaves its line.
  const done = applySteps(input.steps, (line) => writeAll(1, `${JSON.stringify(line)}\n`, false))
  process.exit(done === input.steps.length ? 0 : 1)
}

// Run as a program (not when a test imports applySteps).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main()
