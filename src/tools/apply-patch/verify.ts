/**
 * A parsed patch checked against the files, before anyone is asked to
 * approve it: every update and delete target is a regular, readable UTF-8
 * file; no add or move target exists yet; each file is touched once; every
 * hunk is placed (hunks.ts). The result is the plan the approver is shown
 * (a unified diff per file) and the applier carries out (applier.ts), with
 * the digest of each old text so a file that changes in between is not
 * overwritten.
 *
 * Files are read by this (unconfined) process, so a path the sandbox
 * profile would not let a command read is refused here (`unreadable`):
 * whether a hunk matches would otherwise tell the model something about a
 * file it may not see — and so is a new file there (locate()). Paths are canonical (symlinks resolved): the keys,
 * the permission check and the applier all use where a write really lands.
 * The file read (or found absent) is the canonical path checked, not
 * where a symlink swapped in since then leads (inDir()); a resolved path
 * the approver could not read as written is refused (mustBeShowable()); and
 * one patch reads each file once and at most MAX_PATCH_READ_BYTES /
 * MAX_PATCH_READ_LINES in all (Reads).
 */
import { constants, type BigIntStats } from 'node:fs'
import { lstat, open, readlink, type FileHandle } from 'node:fs/promises'
import { basename, dirname, resolve } from 'node:path'
import { sha256 } from '../../orchestrator/approval/command-key.js'
import { canonicalPath } from '../../orchestrator/denial/path-rules.js'
import { PatchVerifyError } from './errors.js'
import { applyHunks } from './hunks.js'
import { diffHunk, textLines, unifiedDiff, type DiffHunk } from './diff.js'
import { Budget, type MatchLevel } from './match.js'
import type { FileOp, Patch } from './parser.js'
import { quote } from '../../orchestrator/text.js'

export interface FileChange {
  readonly kind: 'add' | 'delete' | 'update'
  /** As the patch names it. */
  readonly path: string
  /** Absolute and canonical. */
  readonly resolved: string
  readonly moveTo?: { readonly path: string; readonly resolved: string }
  /** Update and delete: the text verified against, and its SHA-256 (the applier compares before writing). */
  readonly oldText?: string
  readonly oldSha256?: string
  /** Add and update: what the file will hold. */
  readonly newText?: string
  readonly hunks: readonly DiffHunk[]
  /** Update: how each hunk matched (match.ts). */
  readonly levels?: readonly MatchLevel[]
  /** The unified diff of this file. */
  readonly diff: string
}

export interface PatchPlan {
  /** The directory relative paths were resolved in. */
  readonly cwd: string
  readonly changes: readonly FileChange[]
  /** Every path written or removed (canonical), in patch order: a move names its source and its target. */
  readonly paths: readonly string[]
}

export interface VerifyOptions {
  readonly cwd: string
  /** Why a command in the sandbox could not read this canonical path (undefined: it can). */
  readonly unreadable?: (path: string) => string | undefined
}

export async function verifyPatch(patch: Patch, options: VerifyOptions): Promise<PatchPlan> {
  const cwd = resolve(options.cwd)
  const seen = new Map<string, number>()
  const budget = new Budget()
  const reads = new Reads()
  const changes: FileChange[] = []
  for (const op of patch.ops) {
    const at = locate(op.path, op.line, cwd, options)
    claim(seen, at)
    const moveTo = op.kind === 'update' && op.moveTo ? locate(op.moveTo.path, op.moveTo.line, cwd, options) : undefined
    if (moveTo) claim(seen, moveTo)
    changes.push(await verifyOp(op, at, moveTo, budget, reads))
  }
  return { cwd, changes, paths: changes.flatMap((c) => (c.moveTo ? [c.resolved, c.moveTo.resolved] : [c.resolved])) }
}

type At = { path: string; resolved: string; line: number }

/**
 * Where a patch path lands (canonical), refused first when a command could
 * not read it — for every operation, a new file included: this process
 * stats and follows links unconfined, so an "exists already", a duplicate
 * or where a link leads would tell the model about a directory it may not
 * see. Checked on the path as written (a symlink inside a denied directory
 * is not followed), then on where it lands (a link into one).
 */
function locate(path: string, line: number, cwd: string, options: VerifyOptions): At {
  const written = { path, resolved: resolve(cwd, path), line }
  mustBeReadable(written, options)
  const at = { ...written, resolved: canonicalPath(written.resolved) }
  mustBeReadable(at, options)
  mustBeShowable(at)
  mustBeOrdinary(at)
  return at
}

/** Kernel filesystems: no file a patch edits, and what this process reads there is its own (/proc/self/environ: the caller's secrets). */
const KERNEL_FILESYSTEMS = ['/proc', '/sys', '/dev']

/**
 * This process is the caller, unconfined: `/proc/self/environ` canonicalises
 * to its own, which a sandboxed command cannot read, but no profile denies
 * by name — a delete's diff would show the caller's environment.
 */
function mustBeOrdinary(at: At): void {
  const fs = KERNEL_FILESYSTEMS.find((d) => at.resolved === d || at.resolved.startsWith(`${d}/`))
  if (fs) throw new PatchVerifyError('unreadable', at, `lies in the kernel filesystem ${fs}: a patch edits files, and what this process would read there is its own`)
}

/**
 * What can rewrite the line an approver reads: controls (ESC, CR, newline,
 * C1), the line and paragraph separators, and the bidi marks, embeddings,
 * overrides and isolates. Narrower than the parser's UNSHOWABLE_IN_PATH:
 * a resolved path holds the workspace's own name too, and zero-width
 * joiners and soft hyphens are ordinary there (emoji, Persian words).
 */
const REWRITES_LINE = /[\p{Cc}\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u

/**
 * The approver is shown where a path resolves. The parser refuses control
 * and bidi characters in the patch's own paths, but a symlink a sandboxed
 * command made (`docs -> "x\e[2K\rREADME.md (unchanged)"`) would bring them
 * back through its target's name and rewrite the approver's line.
 */
function mustBeShowable(at: At): void {
  if (REWRITES_LINE.test(at.resolved)) throw new PatchVerifyError('unshowable', at, `resolves to ${quote(at.resolved)}, a path with a control or bidirectional-format character: the approver could not read where it is written`)
}

function mustBeReadable(at: At, options: VerifyOptions): void {
  const denied = options.unreadable?.(at.resolved)
  if (denied) throw new PatchVerifyError('unreadable', at, `the sandbox does not let commands read it (${denied})`)
}

function claim(seen: Map<string, number>, at: At): void {
  const before = seen.get(at.resolved)
  if (before !== undefined) throw new PatchVerifyError('duplicate', at, `the patch already touches this file at line ${before}: give each file once`)
  seen.set(at.resolved, at.line)
}

async function verifyOp(op: FileOp, at: At, moveTo: At | undefined, budget: Budget, reads: Reads): Promise<FileChange> {
  if (op.kind === 'add') {
    await mustBeAbsent(at)
    const lines = textLines(op.content)
    const hunks = lines.length ? [diffHunk(0, 0, lines.map((l) => `+${l}`))] : []
    return { kind: 'add', path: op.path, resolved: at.resolved, newText: op.content, hunks, diff: unifiedDiff(null, op.path, hunks) }
  }
  const oldText = await readText(at, reads)
  const oldSha256 = sha256(oldText)
  if (op.kind === 'delete') {
    const lines = textLines(oldText)
    const hunks = lines.length ? [diffHunk(0, 0, lines.map((l) => `-${l}`))] : []
    return { kind: 'delete', path: op.path, resolved: at.resolved, oldText, oldSha256, hunks, diff: unifiedDiff(op.path, null, hunks) }
  }
  if (moveTo) await mustBeAbsent(moveTo)
  const r = applyHunks(textLines(oldText), op.hunks, at, budget)
  const newText = joinLike(oldText, r.lines)
  const move = moveTo ? { moveTo: { path: moveTo.path, resolved: moveTo.resolved } } : {}
  return { kind: 'update', path: op.path, resolved: at.resolved, ...move, oldText, oldSha256, newText, hunks: r.hunks, levels: r.levels, diff: unifiedDiff(op.path, moveTo?.path ?? op.path, r.hunks) }
}

/**
 * The new lines with the old text's line ending (CRLF when it used CRLF)
 * and its final newline: present when the old text had one or was empty.
 */
function joinLike(oldText: string, lines: readonly string[]): string {
  if (lines.length === 0) return ''
  const eol = oldText.includes('\r\n') ? '\r\n' : '\n'
  const final = oldText === '' || oldText.endsWith('\n') ? eol : ''
  return lines.join(eol) + final
}

/**
 * An add or move target must not exist. Looked at without following it
 * (a symlink there exists, wherever it leads) and through its directory as
 * canonicalised (inDir): a symlink swapped into the path would otherwise
 * answer for a file in a directory commands may not read.
 */
async function mustBeAbsent(at: At): Promise<void> {
  try {
    await inDir(at, at.resolved, (entry) => lstat(entry))
  } catch (e) {
    if (e instanceof PatchVerifyError) throw e
    if (codeOf(e) === 'ENOENT') return
    throw new PatchVerifyError('unreadable', at, `cannot check whether it exists (${codeOf(e) ?? 'error'})`)
  }
  throw new PatchVerifyError('exists', at, 'exists already: update it instead of adding it (or delete it first)')
}

/** A file larger than this is not patched: its text is held, diffed and sent to the applier. */
export const MAX_FILE_BYTES = 16 * 1024 * 1024
/**
 * What one patch may read in all (update and delete targets together):
 * each file read is held as text and lines, diffed and kept in the plan,
 * so a patch of many large files — or of hard links to one — would fill
 * this process's heap (a 2 KB patch of 120 deletes of 16 MiB files did).
 */
export const MAX_PATCH_READ_BYTES = 64 * 1024 * 1024
export const MAX_PATCH_READ_LINES = 2_000_000

/**
 * The files one patch reads, and what is left of its budget. An inode is
 * read once: two names of one file (hard links) are refused, as the same
 * name twice is (claim()).
 */
class Reads {
  bytes = MAX_PATCH_READ_BYTES
  lines = MAX_PATCH_READ_LINES
  private readonly inodes = new Map<string, At>()

  /** Before reading: not a file read already, and its size fits what is left. */
  open(at: At, st: BigIntStats): void {
    const key = `${st.dev}:${st.ino}`
    const before = this.inodes.get(key)
    if (before) throw new PatchVerifyError('duplicate', at, `is the same file as ${before.path} (patch line ${before.line}), a hard link: give each file once`)
    this.inodes.set(key, at)
    if (st.size > BigInt(this.bytes)) throw this.over(at, `${MAX_PATCH_READ_BYTES} bytes`)
  }

  /** After reading: its bytes and lines are spent. */
  spend(at: At, buf: Buffer): void {
    this.bytes -= buf.length
    if (this.bytes < 0) throw this.over(at, `${MAX_PATCH_READ_BYTES} bytes`)
    for (let i = buf.indexOf(10); i !== -1 && this.lines >= 0; i = buf.indexOf(10, i + 1)) this.lines--
    if (this.lines < 0) throw this.over(at, `${MAX_PATCH_READ_LINES} lines`)
  }

  private over(at: At, what: string): PatchVerifyError {
    return new PatchVerifyError('unreadable', at, `with the files before it, the patch would read more than the ${what} one patch may: split it into smaller patches`)
  }
}

/**
 * The file's text. Opened first, without blocking and through inDir(), and
 * checked on the open descriptor: a path checked then opened could be
 * swapped in between for a FIFO (an open that never returns), a device
 * (endless bytes) or a symlink by a command still running in the sandbox.
 */
async function readText(at: At, reads: Reads): Promise<string> {
  let buf: Buffer
  try {
    buf = await inDir(at, at.resolved, (entry) => readEntry(at, entry, reads))
  } catch (e) {
    if (e instanceof PatchVerifyError) throw e
    const code = codeOf(e)
    if (code === 'ELOOP') throw changed(at)
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new PatchVerifyError('missing', at, 'does not exist')
    throw new PatchVerifyError('unreadable', at, `cannot be read (${code ?? 'error'})`)
  }
  const text = buf.toString('utf8')
  if (!Buffer.from(text, 'utf8').equals(buf)) throw new PatchVerifyError('unreadable', at, 'is not UTF-8 text: a patch would change bytes it does not mention')
  return text
}

async function readEntry(at: At, entry: string, reads: Reads): Promise<Buffer> {
  // O_NOFOLLOW: `entry` names a canonical path, so a symlink there was swapped in after it was checked (ELOOP).
  const fh = await open(entry, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW)
  try {
    const st = await fh.stat({ bigint: true })
    if (!st.isFile()) throw new PatchVerifyError('missing', at, 'is not a regular file')
    if (st.size > BigInt(MAX_FILE_BYTES)) throw new PatchVerifyError('unreadable', at, `is ${st.size} bytes, more than the ${MAX_FILE_BYTES} a patch edits`)
    reads.open(at, st)
    const buf = await fh.readFile()
    if (buf.length > MAX_FILE_BYTES) throw new PatchVerifyError('unreadable', at, `grew past the ${MAX_FILE_BYTES} bytes a patch edits while it was read`)
    reads.spend(at, buf)
    return buf
  } finally {
    await fh.close()
  }
}

/**
 * Linux: a name is reached inside an open directory through
 * /proc/self/fd/N/<name> — openat(2) semantics, which node:fs lacks.
 * Elsewhere paths are opened whole, and only their last name is kept from
 * following a symlink (O_NOFOLLOW): a symlink a command swaps into a
 * parent directory between the check and the open is not caught there.
 */
const FD_PATHS = process.platform === 'linux'
/** Linux O_PATH (not in node:fs): a descriptor of the directory itself, needing no read permission on it. */
const O_PATH = 0o10000000
const { O_RDONLY, O_NONBLOCK, O_NOCTTY, O_NOFOLLOW, O_DIRECTORY } = constants

/**
 * `use` given a name that reaches `path` (canonical) through its
 * directory, opened without following any symlink on the way. A command in
 * the sandbox can swap a symlink into the path between canonicalPath() and
 * the open (a renameat2 exchange loop): followed, it would have this
 * process read a file of a denied directory that the readability check
 * never saw — a context match, an "ambiguous" line number, a delete's diff
 * or an "exists" would tell the model about it. canonicalPath() resolved
 * every symlink, so one met now was swapped in (or leads nowhere).
 */
async function inDir<T>(at: At, path: string, use: (entry: string) => Promise<T>): Promise<T> {
  if (!FD_PATHS) return use(path)
  const dir = await openDir(at, dirname(path))
  try {
    return await use(`/proc/self/fd/${dir.fd}/${basename(path)}`)
  } finally {
    await dir.close()
  }
}

/** The directory, opened one name at a time from `/`, each inside the one before: what fails is the canonical path's own entry, never a link's target. */
async function openDir(at: At, dir: string): Promise<FileHandle> {
  let fh = await open('/', O_PATH | O_DIRECTORY)
  // Without /proc (a container or chroot that has none) every name below would answer ENOENT,
  // which reads as "absent": an existing file would pass as missing and an Add over it as new.
  if (!(await holdsRoot(fh))) {
    await fh.close()
    throw new PatchVerifyError('unreadable', at, 'cannot be checked: /proc is not mounted (or not usable) in this process, and the check reaches each directory through /proc/self/fd')
  }
  for (const name of dir.split('/').filter((n) => n !== '')) {
    const parent = fh
    try {
      fh = await openChild(at, parent, name)
    } finally {
      await parent.close()
    }
  }
  return fh
}

/** A directory `name` in `parent`. A symlink fails the open (O_NOFOLLOW: ENOTDIR) and is told from a file by lstat in the same directory. */
async function openChild(at: At, parent: FileHandle, name: string): Promise<FileHandle> {
  const entry = `/proc/self/fd/${parent.fd}/${name}`
  try {
    return await open(entry, O_PATH | O_DIRECTORY | O_NOFOLLOW)
  } catch (e) {
    if (codeOf(e) === 'ENOTDIR' && (await lstat(entry)).isSymbolicLink()) throw changed(at)
    throw e
  }
}

/** /proc/self/fd names `fh`, a descriptor of `/`, as `/`. */
async function holdsRoot(fh: FileHandle): Promise<boolean> {
  try {
    return (await readlink(`/proc/self/fd/${fh.fd}`)) === '/'
  } catch {
    return false
  }
}

function changed(at: At): PatchVerifyError {
  return new PatchVerifyError('changed', at, 'a symbolic link is on its path now (it changed while the patch was verified, or leads nowhere): nothing was read; try again once nothing changes it')
}

function codeOf(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException).code
}
