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
 * Self-contained on purpose (node: modules only): it is started by path
 * and must not load the rest of cordon inside the sandbox.
 */
import { createHash, randomBytes } from 'node:crypto'
import { closeSync, ftruncateSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs'
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

/** The file must still be what was verified (another process may have changed it since). */
function checkUnchanged(path: string, sha256: string): void {
  if (digest(readFileSync(path)) !== sha256) throw new StepError('ECHANGED', `${path} changed after the patch was verified; nothing written to it`)
}

function writeAll(fd: number, content: string): void {
  const buf = Buffer.from(content, 'utf8')
  for (let off = 0; off < buf.length; ) off += writeSync(fd, buf, off)
}

function create(path: string, content: string, mode: number): void {
  const fd = openSync(path, 'wx', mode)
  try {
    writeAll(fd, content)
  } finally {
    closeSync(fd)
  }
}

const REFUSED = new Set(['EACCES', 'EPERM', 'EROFS'])

function overwrite(path: string, content: string): void {
  const fd = openSync(path, 'r+')
  try {
    ftruncateSync(fd, 0)
    writeAll(fd, content)
  } finally {
    closeSync(fd)
  }
}

function write(step: Extract<ApplierStep, { op: 'write' }>): void {
  if (step.source) checkUnchanged(step.source.path, step.source.sha256)
  if (step.expect === 'absent') {
    mkdirSync(dirname(step.path), { recursive: true })
    create(step.path, step.content, 0o666)
    return
  }
  checkUnchanged(step.path, step.expect.sha256)
  const mode = statSync(step.path).mode & 0o7777
  const temp = join(dirname(step.path), `.${basename(step.path)}.cordon-patch-${randomBytes(6).toString('hex')}`)
  try {
    create(temp, step.content, mode)
  } catch (e) {
    // A directory that refuses new entries but lets this file be written
    // (Landlock mode narrows a directory around a denied read: rights per
    // existing entry): write the file in place, as the sandbox allows.
    if (!REFUSED.has((e as NodeJS.ErrnoException).code ?? '')) throw e
    return overwrite(step.path, step.content)
  }
  try {
    renameSync(temp, step.path)
  } catch (e) {
    unlinkSync(temp)
    throw e
  }
}

function run(step: ApplierStep): void {
  if (step.op === 'write') return write(step)
  checkUnchanged(step.path, step.expect.sha256)
  unlinkSync(step.path)
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
  const done = applySteps(input.steps, (line) => writeAll(1, `${JSON.stringify(line)}\n`))
  process.exit(done === input.steps.length ? 0 : 1)
}

// Run as a program (not when a test imports applySteps).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main()
