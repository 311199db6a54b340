/**
 * Runs the applier (applier.ts) in a sandbox the orchestrator made: node
 * with the applier's code as `-e` text (APPLIER below), the steps on stdin.
 * Node and the package are readable in both Linux modes (namespace mode
 * binds the host read-only); a profile that cannot read them makes the
 * helper fail to start, which is reported, never worked around by writing
 * from this process. node must lie outside every write root of the
 * attempt (applierNode()), and a run is bounded (APPLIER_TIMEOUT_MS).
 *
 * A step the sandbox refused (EACCES, EPERM, EROFS on a path the attempt's
 * profile does not let it write) becomes a structured denial, so the
 * orchestrator can offer its one wider retry on the same terms as for a
 * command (a protected path is never widened: widen.ts).
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import { LoadError } from '../../errors.js'
import { packageRoot } from '../../native/load.js'
import type { Denial } from '../../orchestrator/denial/denial.js'
import { isUnder, writeRuleFor } from '../../orchestrator/denial/path-rules.js'
import type { Enforcement } from '../../platform/enforcement.js'
import type { Sandbox } from '../../sandbox/sandbox.js'
import type { SandboxResult } from '../../sandbox/result.js'
import type { ApplierInput, ApplierLine, ApplierStep } from './applier.js'
import { readApplierLines } from './steps.js'

/** Where the built applier is; a LoadError when the package was not built. */
export function applierPath(root = packageRoot): string {
  const file = join(root, 'dist', 'tools', 'apply-patch', 'applier.js')
  if (!existsSync(file)) throw new LoadError('the apply_patch helper is missing', [file], 'build the package (`npm run build`)')
  return file
}

export interface ApplierRun {
  /** One line per step it reached, numbered from 0 within `steps`. */
  readonly lines: readonly ApplierLine[]
  readonly result: SandboxResult
}

export interface ApplierRunOptions {
  readonly signal?: AbortSignal
  /** Bound on the helper's run (ms); default APPLIER_TIMEOUT_MS. */
  readonly timeout?: number
}

/**
 * The default bound on one run of the helper (ms): it reads and writes a
 * few files, so a minute means it is stuck (a file it blocks on that no
 * check caught): stopped, the lines it printed say what was applied, and
 * the dispatcher's write lock (apply_patch is not parallel) is given back.
 */
export const APPLIER_TIMEOUT_MS = 60_000

/**
 * The applier's code, read once when cordon loads — with the rest of its
 * code, before any command ran — and given to node as `-e` text: node never
 * reads applier.js at patch time. When cordon is installed inside a write
 * root (the workspace's node_modules), a sandboxed command could rewrite
 * that file, and a later patch — approved for its diff, maybe with an extra
 * write root — would run the command's code instead. The path stays as the
 * last argument, a label for people (`process.argv[1]`; the file-URL check
 * at the end of applier.ts is false for `-e` code, so main() is called here).
 */
let applier: { path: string; code: string } | undefined

function loadApplier(): { path: string; code: string } {
  const path = applierPath()
  applier ??= { path, code: `${readFileSync(path, 'utf8')}\nmain();\n` }
  return applier
}

try {
  loadApplier()
} catch {
  // Not built yet: the first patch loads it, or throws the LoadError.
}

/**
 * The node binary that runs the applier, for a sandbox with these write
 * roots. node is executed by path at each patch, after the commands of the
 * session ran: when a write root covers it (a node inside the workspace), a
 * sandboxed command could replace it, and the next patch — approved for
 * its diff, maybe with a write root widened for it — would run the
 * command's program with those roots (red team F9). Refused then, as a
 * LoadError naming the fix; unless a root is `/` or nothing confines the
 * filesystem (a command can write anywhere already: nothing to protect).
 */
export function applierNode(fs: Pick<Enforcement['filesystem'], 'confined' | 'writeRoots'>): string {
  const node = realpathSync(process.execPath)
  if (!fs.confined || fs.writeRoots.includes('/')) return node
  const root = fs.writeRoots.find((r) => isUnder(node, r))
  if (root === undefined) return node
  throw new LoadError(
    `the node binary that runs the apply_patch helper (${node}) lies inside the write root ${root}: a sandboxed command could have replaced it, and a patch would run it with the write roots approved for the patch`,
    [node],
    'run the agent with a node installed outside the workspace and every other write root (e.g. the system one, or one under ~/.nvm when the workspace is a project below ~)',
  )
}

/** The argv that runs the applier (a LoadError when the package was not built, or when `writeRoots` cover node: applierNode()). */
export function applierArgv(fs: Pick<Enforcement['filesystem'], 'confined' | 'writeRoots'>): string[] {
  const a = loadApplier()
  return [applierNode(fs), '--input-type=module', '-e', a.code, a.path]
}

export async function runApplier(sandbox: Sandbox, steps: readonly ApplierStep[], options: ApplierRunOptions = {}): Promise<ApplierRun> {
  const argv = applierArgv(sandbox.report().filesystem)
  const input: ApplierInput = { version: 1, steps }
  // NODE_OPTIONS from the environment could make node load other code (`--require`) before the helper.
  const result = await sandbox.run(argv, {
    input: JSON.stringify(input),
    env: { NODE_OPTIONS: '' },
    ...(options.signal ? { signal: options.signal } : {}),
    timeout: options.timeout || APPLIER_TIMEOUT_MS,
  })
  return { lines: readApplierLines(result.stdout), result }
}

const REFUSED = new Set(['EACCES', 'EPERM', 'EROFS'])

/** A failed step the sandbox refused: its errno says so and the attempt's profile does not let it write the path. */
export function denialsOf(lines: readonly ApplierLine[], steps: readonly ApplierStep[], result: SandboxResult): Denial[] {
  const failed = lines.find((l) => l.status === 'failed')
  const step = failed ? steps[failed.step] : undefined
  if (!failed?.error || !step || !REFUSED.has(failed.error.code)) return []
  const rule = writeRuleFor(result.enforcement.filesystem, step.path)
  if (!rule) return []
  const text = `apply_patch: ${failed.error.code} (${failed.error.syscall ?? 'write'}) on ${step.path}`
  return [{ operation: 'write', rule, path: step.path, evidence: { source: 'stdout', text, by: 'cordon' } }]
}
