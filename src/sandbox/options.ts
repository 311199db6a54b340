/** createSandbox() options, validated with zod at the API boundary. */
import * as z from 'zod/mini'
import { PolicyError } from '../errors.js'
import { parseWith } from '../profile/parse-with.js'
import type { NetworkRule } from '../exec-policy/types.js'
import type { LookupFunction } from '../network/proxy/gate.js'
import type { SandboxNetworkOptions } from './network.js'
import { compatSchema, limitsSchema, modeSchema, networkSchema, nonEmptyString as nonEmpty } from '../profile/schema.js'

const paths = z.optional(z.array(nonEmpty))
const fn = <F>() => z.custom<F>((v) => typeof v === 'function', 'expected a function')

export const sandboxOptionsSchema = z.strictObject({
  /** Built-in name, path to a JSON profile, or a profile object. Default: workspace-write. */
  profile: z.optional(z.union([nonEmpty, z.record(z.string(), z.unknown())])),
  cwd: z.optional(nonEmpty),
  mode: z._default(modeSchema, 'auto'),
  /** Namespace mode: absolute path of bwrap (default /usr/bin/bwrap, then /usr/local/bin/bwrap; PATH is never searched). */
  bwrap: z.optional(nonEmpty),
  /** hard: refuse if anything requested is missing; best-effort: run and report; default: refuse only for explicit requests. */
  compat: z.optional(compatSchema),
  /**
   * Run even when nothing confines the filesystem (Landlock mode on a
   * kernel without Landlock: seccomp only, every readable file reachable).
   * Refused without it under every compat.
   */
  allowUnconfinedFilesystem: z.optional(z.boolean()),
  /** Added to the profile. */
  read: paths,
  write: paths,
  denyRead: paths,
  protected: paths,
  network: z.optional(networkSchema),
  limits: z.optional(limitsSchema),
  /** Network allowlist (docs/network.md): `network_rule(...)` entries of an exec policy, joining the profile's lists. */
  networkRules: z.optional(z.array(z.custom<NetworkRule>((v) => typeof v === 'object' && v !== null && 'host' in v && 'decision' in v))),
  /** Network allowlist: how the proxy resolves names, node:net's `lookup` shape (default node:dns). */
  networkLookup: z.optional(fn<LookupFunction>()),
  /** Network allowlist: asked for a host no entry names ('approved', 'approved_for_session', a network_amendment, …); absent: denied. */
  onNetworkRequest: z.optional(fn<NonNullable<SandboxNetworkOptions['onNetworkRequest']>>()),
  /** Network allowlist: writes a network amendment the approver chose. */
  persistNetworkAnswer: z.optional(fn<NonNullable<SandboxNetworkOptions['persistNetworkAnswer']>>()),
  /** Environment the sandbox environment is built from. Default: process.env at creation. */
  env: z.optional(z.record(z.string(), z.optional(z.string()))),
})

export type SandboxOptions = z.input<typeof sandboxOptionsSchema>
export type ParsedSandboxOptions = z.output<typeof sandboxOptionsSchema>

export function parseSandboxOptions(input: unknown): ParsedSandboxOptions {
  return parseWith(sandboxOptionsSchema, input ?? {}, 'createSandbox options')
}

const positiveInt = z.optional(z.int().check(z.positive()))
/**
 * The longest timeout (ms) a timer can wait: Node's setTimeout fires after
 * 1 ms for anything longer, so a larger `timeout` would kill the command at
 * once instead of never.
 */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1
/** The message for a timeout past MAX_TIMEOUT_MS (the orchestrator's timers say the same). */
export const TIMEOUT_TOO_LONG = `at most ${MAX_TIMEOUT_MS} ms (about 24.8 days): a longer timer fires at once`
const timeoutMs = z.optional(z.int().check(z.positive(), z.maximum(MAX_TIMEOUT_MS, TIMEOUT_TOO_LONG)))
/** struct winsize carries unsigned shorts. */
const terminalDim = z.int().check(z.minimum(1), z.maximum(0xffff))
const output = z._default(z.enum(['pipe', 'inherit', 'ignore']), 'pipe')
export const runOptionsSchema = z.strictObject({
  timeout: timeoutMs,
  signal: z.optional(z.instanceof(AbortSignal)),
  /** Written to stdin, which is then closed (implies `stdin: 'pipe'`). */
  input: z.optional(z.union([z.string(), z.instanceof(Uint8Array)])),
  /** Extra variables for this run (set after the profile's env policy). */
  env: z.optional(z.record(z.string(), z.string())),
  /**
   * Where this command starts (relative: to the sandbox cwd). It must exist
   * in the sandbox's readable tree; the profile's paths (`${cwd}`, write
   * roots) stay the sandbox's.
   */
  cwd: z.optional(nonEmpty),
  /** Default: `'pipe'` for spawn() (`child.stdin` is a stream), `'ignore'` for run() (end of file at once). */
  stdin: z.optional(z.enum(['pipe', 'ignore', 'inherit'])),
  stdout: output,
  stderr: output,
  /** Also return stdout and stderr interleaved, as `all`. */
  all: z.optional(z.boolean()),
  /** `'buffer'`: stdout, stderr and all are Buffers, byte for byte. */
  encoding: z._default(z.enum(['utf8', 'buffer']), 'utf8'),
  maxBuffer: positiveInt,
  /**
   * Run the command on a new pseudo-terminal of this size: its stdin,
   * stdout and stderr, and its controlling terminal (in a session of its
   * own). `SandboxProcess.terminal` writes, resizes and ends its input;
   * its output is the result's `stdout`. Not together with `input`,
   * `stdin`, `stdout`, `stderr` or `all`.
   */
  tty: z.optional(z.strictObject({ rows: terminalDim, cols: terminalDim })),
  /**
   * Called with each chunk of piped stdout and stderr as cordon reads it
   * (whole chunks, also past `maxBuffer`; the result keeps its bounded
   * copy as always). With it, spawn() hands out no stdout and stderr
   * streams (`null`): the listener is where the output goes. A `tty` run's
   * terminal output reaches it as `'stdout'`. A listener that throws is
   * not called again; its error is rethrown outside the read (an uncaught
   * exception, as from a stream's 'data' handler) and the run goes on.
   */
  onOutput: z.optional(fn<OutputListener>()),
})
/** `onOutput`: which stream a chunk was read from, and the bytes. */
export type OutputListener = (stream: 'stdout' | 'stderr', chunk: Buffer) => void
export type RunOptions = z.input<typeof runOptionsSchema>
export type ParsedRunOptions = z.output<typeof runOptionsSchema>

/** Run options that ask for Buffers: stdout, stderr and all as bytes. */
export type BufferRunOptions = RunOptions & { encoding: 'buffer' }
/** Run options that ask for strings (the default encoding). */
export type TextRunOptions = RunOptions & { encoding?: 'utf8' | undefined }

/** Stdio options a `tty` run replaces by its terminal. */
const TTY_EXCLUSIVE = ['input', 'stdin', 'stdout', 'stderr', 'all'] as const

export function parseRunOptions(input: unknown): ParsedRunOptions {
  const parsed = parseWith(runOptionsSchema, input ?? {}, 'run options')
  if (parsed.tty) {
    const raw = input as Record<string, unknown>
    const clash = TTY_EXCLUSIVE.find((k) => raw[k] !== undefined)
    if (clash) throw new PolicyError(`\`${clash}\` does not apply to a run with \`tty\`: the terminal is its stdin, stdout and stderr`, { where: `run options: ${clash}` })
  }
  return parsed
}

const argvSchema = z
  .array(z.string().check(z.refine((s) => !s.includes('\0'), 'argument contains a NUL byte')))
  .check(z.minLength(1, 'empty command'))

export function parseArgv(argv: unknown): string[] {
  const r = argvSchema.safeParse(argv, { jitless: true })
  if (r.success && r.data[0] !== '') return r.data
  throw new PolicyError(r.success ? 'empty program name' : r.error.issues[0]!.message, { where: 'command' })
}
