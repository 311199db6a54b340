/**
 * The permission profile: what a sandboxed command may read, write and reach.
 * Validated with zod at the boundary; everything past this point receives a
 * plain, validated object. `profiles/profile.schema.json` is generated from
 * these schemas for editors (scripts/gen-schema.mjs).
 */
import * as z from 'zod/mini'
import { globalConfig } from 'zod/v4/core'
import en from 'zod/v4/locales/en.js'

// zod/mini rather than zod's chained API: the same validation core, but
// schemas are plain objects instead of instances carrying ~60 methods each,
// which made building these few schemas the largest part of `cordon run`'s
// start-up. Mini ships no messages of its own: zod's English ones, unless
// the application has already chosen a language (zod's config is global).
if (!globalConfig.localeError) z.config(en())

/** A path: absolute, `~/…`, or relative to the sandbox cwd; `${cwd}` and `${tmpdir}` expand. */
const pathString = z.string().check(
  z.minLength(1, 'empty path'),
  z.refine((s) => !s.includes('\0'), 'path contains a NUL byte'),
)

// One instance for each shape used more than once: every schema built is
// start-up time of `cordon run` (the schemas are made at module load).
const pathList = z._default(z.array(pathString), [])

export const filesystemSchema = z.strictObject({
  /** `all`: the whole filesystem is readable (minus denyRead); or a list of read roots. */
  read: z._default(z.union([z.literal('all'), z.array(pathString)]), 'all'),
  /** Roots where the command may create, modify and delete. */
  write: pathList,
  /** Paths or globs that must never be readable, even inside read or write roots. */
  denyRead: pathList,
  /** Paths inside write roots that stay read-only (persistence targets such as .git/hooks). */
  protected: pathList,
  /** Also deny the built-in secrets list (profiles/secrets.json): ~/.ssh, ~/.aws, … */
  denySecrets: z._default(z.boolean(), true),
})

/** A non-empty string (names, sandbox option paths). */
export const nonEmptyString = z.string().check(z.minLength(1))
export const envSchema = z.strictObject({
  /** Only these names (globs like `LC_*`) pass; absent: everything not denied passes. */
  allow: z.optional(z.array(nonEmptyString)),
  /** Names (globs) always dropped, on top of the secret patterns. */
  deny: z._default(z.array(nonEmptyString), []),
  /** Drop names that look like secrets (`*_TOKEN`, `AWS_*`, …). */
  dropSecrets: z._default(z.boolean(), true),
  /** Set or override variables in the sandbox. */
  set: z._default(z.record(z.string(), z.string()), {}),
})

/**
 * `off`: no sockets at all (socketpair within the sandbox excepted);
 * `inet`: every host over IP, but no unix socket of the host (docker.sock,
 * D-Bus, an ssh agent: seccomp refuses AF_UNIX sockets, Landlock scopes
 * abstract ones) — what an orchestrator's network widening grants;
 * `on`: every host and every local socket.
 */
export const networkLevelSchema = z.enum(['off', 'inet', 'on'])

/**
 * A domain allowlist (docs/network.md): the command reaches the network only
 * through cordon's proxy, which lets `allow` hosts through, refuses `deny`
 * hosts (deny wins), and asks an approver for the rest when one is set.
 * Entries: `registry.npmjs.org`, `*.github.com` (names below github.com,
 * not github.com itself), IP literals, each with an optional `:port`; a
 * bare `*` is refused (src/network/host-pattern.ts).
 */
export const networkAllowlistSchema = z.strictObject({
  allow: z._default(z.array(nonEmptyString), []),
  deny: z._default(z.array(nonEmptyString), []),
})
// A value that is neither: name both forms (zod's union would say only "Invalid input").
export const networkSchema = z.union([networkLevelSchema, networkAllowlistSchema], {
  error: (iss) => (typeof iss.input === 'object' && iss.input !== null ? undefined : 'expected "off", "inet", "on" or an allowlist { allow: [...], deny: [...] }'),
})
export type NetworkAllowlist = z.output<typeof networkAllowlistSchema>

const limit = z.optional(z.int().check(z.nonnegative()))
/** A cgroup limit: a positive amount, or `max` (cgroups' own word for "not limited"). */
const cgroupLimit = (n: z.ZodMiniType<number>) => z.optional(z.union([n, z.literal('max')]))
/**
 * `nproc` … `cpu`: setrlimit(2) limits, per process (a root command ignores
 * RLIMIT_NPROC). `pids`, `memory`, `cpus`: limits of the run's own cgroup,
 * for the whole tree of processes together (docs/policies.md): processes
 * and threads at once (default 4096), bytes of memory, CPUs' worth of time
 * (0.5 = half of one CPU).
 */
export const limitsSchema = z.strictObject({
  nproc: limit,
  nofile: limit,
  fsize: limit,
  as: limit,
  cpu: limit,
  pids: cgroupLimit(z.int().check(z.positive())),
  memory: cgroupLimit(z.int().check(z.positive())),
  cpus: cgroupLimit(z.number().check(z.positive(), z.lte(4096))),
})

export const profileSchema = z.strictObject({
  $schema: z.optional(z.string()),
  name: z.optional(nonEmptyString),
  description: z.optional(z.string()),
  // Defaults are made per parse: zod copies a default value only one level deep.
  filesystem: z._default(filesystemSchema, () => ({ read: 'all' as const, write: [], denyRead: [], protected: [], denySecrets: true })),
  network: z._default(networkSchema, 'off'),
  env: z._default(envSchema, () => ({ deny: [], dropSecrets: true, set: {} })),
  limits: z._default(limitsSchema, () => ({})),
  /** Run without any sandbox. Only honoured with `full-access`-style profiles and never with denyRead. */
  unsandboxed: z._default(z.boolean(), false),
})

export type ProfileInput = z.input<typeof profileSchema>
export type Profile = z.output<typeof profileSchema>

export const modeSchema = z.enum(['auto', 'namespaces', 'landlock'])
export const compatSchema = z.enum(['hard', 'best-effort'])
export type SandboxMode = z.infer<typeof modeSchema>
export type Compat = z.infer<typeof compatSchema>
