/** createSandbox() options, validated with zod at the API boundary. */
import * as z from 'zod'
import { PolicyError } from '../errors.js'
import { parseWith } from '../policy/parse-with.js'
import { compatSchema, limitsSchema, modeSchema } from '../policy/schema.js'

const paths = z.array(z.string().min(1)).optional()

export const sandboxOptionsSchema = z
  .object({
    /** Built-in name, path to a JSON profile, or a profile object. Default: workspace-write. */
    profile: z.union([z.string().min(1), z.record(z.string(), z.unknown())]).optional(),
    cwd: z.string().min(1).optional(),
    mode: modeSchema.default('auto'),
    /** Namespace mode: absolute path of bwrap (default /usr/bin/bwrap, then /usr/local/bin/bwrap; PATH is never searched). */
    bwrap: z.string().min(1).optional(),
    /** hard: refuse if anything requested is missing; best-effort: run and report; default: refuse only for explicit requests. */
    compat: compatSchema.optional(),
    /** Added to the profile. */
    read: paths,
    write: paths,
    denyRead: paths,
    protected: paths,
    network: z.enum(['off', 'on']).optional(),
    limits: limitsSchema.optional(),
    /** Environment the sandbox environment is built from. Default: process.env at creation. */
    env: z.record(z.string(), z.string().optional()).optional(),
  })
  .strict()

export type SandboxOptions = z.input<typeof sandboxOptionsSchema>
export type ParsedSandboxOptions = z.output<typeof sandboxOptionsSchema>

export function parseSandboxOptions(input: unknown): ParsedSandboxOptions {
  return parseWith(sandboxOptionsSchema, input ?? {}, 'createSandbox options')
}

export const runOptionsSchema = z
  .object({
    timeout: z.number().int().positive().optional(),
    signal: z.instanceof(AbortSignal).optional(),
    input: z.union([z.string(), z.instanceof(Uint8Array)]).optional(),
    /** Extra variables for this run (set after the profile's env policy). */
    env: z.record(z.string(), z.string()).optional(),
    stdin: z.enum(['pipe', 'ignore', 'inherit']).default('ignore'),
    stdout: z.enum(['pipe', 'inherit', 'ignore']).default('pipe'),
    stderr: z.enum(['pipe', 'inherit', 'ignore']).default('pipe'),
    maxBuffer: z.number().int().positive().optional(),
  })
  .strict()
export type RunOptions = z.input<typeof runOptionsSchema>

export function parseRunOptions(input: unknown): z.output<typeof runOptionsSchema> {
  return parseWith(runOptionsSchema, input ?? {}, 'run options')
}

const argvSchema = z.array(z.string().refine((s) => !s.includes('\0'), 'argument contains a NUL byte')).min(1, 'empty command')

export function parseArgv(argv: unknown): string[] {
  const r = argvSchema.safeParse(argv, { jitless: true })
  if (r.success && r.data[0] !== '') return r.data
  throw new PolicyError(r.success ? 'empty program name' : r.error.issues[0]!.message, { where: 'command' })
}
