/**
 * The permission profile: what a sandboxed command may read, write and reach.
 * Validated with zod at the boundary; everything past this point receives a
 * plain, validated object. `profiles/profile.schema.json` is generated from
 * these schemas for editors (scripts/gen-schema.mjs).
 */
import * as z from 'zod'

/** A path: absolute, `~/…`, or relative to the sandbox cwd; `${cwd}` and `${tmpdir}` expand. */
const pathString = z
  .string()
  .min(1, 'empty path')
  .refine((s) => !s.includes('\0'), 'path contains a NUL byte')

export const filesystemSchema = z
  .object({
    /** `all`: the whole filesystem is readable (minus denyRead); or a list of read roots. */
    read: z.union([z.literal('all'), z.array(pathString)]).default('all'),
    /** Roots where the command may create, modify and delete. */
    write: z.array(pathString).default([]),
    /** Paths or globs that must never be readable, even inside read or write roots. */
    denyRead: z.array(pathString).default([]),
    /** Paths inside write roots that stay read-only (persistence targets such as .git/hooks). */
    protected: z.array(pathString).default([]),
    /** Also deny the built-in secrets list (profiles/secrets.json): ~/.ssh, ~/.aws, … */
    denySecrets: z.boolean().default(true),
  })
  .strict()

export const envSchema = z
  .object({
    /** Only these names (globs like `LC_*`) pass; absent: everything not denied passes. */
    allow: z.array(z.string().min(1)).optional(),
    /** Names (globs) always dropped, on top of the secret patterns. */
    deny: z.array(z.string().min(1)).default([]),
    /** Drop names that look like secrets (`*_TOKEN`, `AWS_*`, …). */
    dropSecrets: z.boolean().default(true),
    /** Set or override variables in the sandbox. */
    set: z.record(z.string(), z.string()).default({}),
  })
  .strict()

const limit = z.number().int().nonnegative()
export const limitsSchema = z
  .object({
    nproc: limit.optional(),
    nofile: limit.optional(),
    fsize: limit.optional(),
    as: limit.optional(),
    cpu: limit.optional(),
  })
  .strict()

export const profileSchema = z
  .object({
    $schema: z.string().optional(),
    name: z.string().min(1).optional(),
    description: z.string().optional(),
    filesystem: filesystemSchema.default({ read: 'all', write: [], denyRead: [], protected: [], denySecrets: true }),
    network: z.enum(['off', 'on']).default('off'),
    env: envSchema.default({ deny: [], dropSecrets: true, set: {} }),
    limits: limitsSchema.default({}),
    /** Run without any sandbox. Only honoured with `full-access`-style profiles and never with denyRead. */
    unsandboxed: z.boolean().default(false),
  })
  .strict()

export type ProfileInput = z.input<typeof profileSchema>
export type Profile = z.output<typeof profileSchema>

export const modeSchema = z.enum(['auto', 'namespaces', 'landlock'])
export const compatSchema = z.enum(['hard', 'best-effort'])
export type SandboxMode = z.infer<typeof modeSchema>
export type Compat = z.infer<typeof compatSchema>
