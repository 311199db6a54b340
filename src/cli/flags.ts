/**
 * Every flag of every subcommand, as data. The parser (args.ts), the
 * `--help` text (help.ts) and the flag tables in docs/cli.md
 * (scripts/gen-cli-docs.mjs, checked by test/unit/cli/cli-docs.test.ts) all
 * read these tables, so none of them can know a flag the others do not.
 *
 * This file is on `cordon run`'s start-up path (bundled into run.cjs): data
 * only, no imports.
 */

export interface Flag {
  readonly name: `--${string}`
  /** A one-letter alias (`-h`). */
  readonly short?: `-${string}`
  /** The value's placeholder (`PATH`); a flag without one is a switch and takes no value. */
  readonly value?: string
  /** The only values accepted; the parser refuses anything else. */
  readonly choices?: readonly string[]
  /** May be given more than once; each occurrence adds a value. */
  readonly repeatable?: boolean
  /** Also takes every following word up to the next flag or `--` (`--rules a.rules b.rules`). */
  readonly variadic?: boolean
  /** Must be given (a usage error otherwise). */
  readonly required?: boolean
  /** What applies when the flag is not given. */
  readonly default?: string
  readonly description: string
}

/** What a subcommand takes after its options. */
export type Operands =
  /** A command to run: from the first word that is not an option, or after `--`. */
  | 'command'
  /** A command, and `--` before it is required. */
  | 'command-after-dashdash'
  /** Nothing. */
  | 'none'

/** One exit status of a subcommand: a number, or a form such as `128+N`. */
export interface ExitStatus {
  readonly code: number | string
  readonly meaning: string
}

export interface CommandSpec {
  readonly name: 'run' | 'explain' | 'doctor' | 'check'
  readonly summary: string
  readonly operands: Operands
  readonly flags: readonly Flag[]
  readonly exits: readonly ExitStatus[]
}

/**
 * The statuses cordon itself exits with. Usage errors get 64 (EX_USAGE,
 * sysexits.h) in every subcommand: 2 is `cordon check`'s "forbidden" and the
 * status of many commands `cordon run` runs (grep, diff, bash's own usage
 * errors); 125-127 and 128+N are the run semantics of env(1) and timeout(1).
 */
const USAGE = 64
const DATA_ERROR = 65
const INTERNAL = 70
const SETUP = 125
const NOT_EXECUTABLE = 126
const NOT_FOUND = 127
export const EXIT = { usage: USAGE, dataError: DATA_ERROR, internal: INTERNAL, setup: SETUP, notExecutable: NOT_EXECUTABLE, notFound: NOT_FOUND } as const

const usageExit: ExitStatus = { code: USAGE, meaning: 'usage error: an unknown flag, a bad or missing value, a missing or unexpected argument; nothing was run' }
const setupExit: ExitStatus = {
  code: SETUP,
  meaning: 'the sandbox could not be set up: a bad profile or path, a protection that is required and missing here (`--compat`), a launcher step that failed; nothing was run',
}
const internalExit: ExitStatus = { code: INTERNAL, meaning: 'internal error (EX_SOFTWARE), e.g. the shell grammar could not be loaded' }

const help: Flag = {
  name: '--help',
  short: '-h',
  description: "Print the subcommand's help (every flag, its default, the exit statuses) on stdout and exit 0; with `--json`, as JSON. Other flags are not looked at.",
}

/** The options of a sandbox: `cordon run` and `cordon explain` take the same ones. */
const sandboxFlags: readonly Flag[] = [
  {
    name: '--profile',
    value: 'NAME|FILE',
    default: 'workspace-write',
    description: 'Permission profile: `read-only`, `workspace-write`, `full-access`, or the path of a JSON profile (docs/policies.md).',
  },
  { name: '--read', value: 'PATH', repeatable: true, description: 'Also let the command read PATH (a file, or a directory and everything below it), on top of the profile.' },
  { name: '--write', value: 'PATH', repeatable: true, description: 'Also let the command write PATH, on top of the profile.' },
  { name: '--deny-read', value: 'PATH', repeatable: true, description: "Keep PATH unreadable even where the profile allows reading; may be a glob (`'${cwd}/**/.env'`)." },
  { name: '--network', value: 'off|on', choices: ['off', 'on'], default: "the profile's: off, on for full-access", description: 'Whether the command may open network sockets.' },
  {
    name: '--allow-host',
    value: 'HOST',
    repeatable: true,
    description:
      "Let the command reach HOST (`registry.npmjs.org`, `*.github.com` for the names below github.com, an IP address; an optional `:PORT`) through cordon's network proxy, and nothing else: the network becomes an allowlist — the profile's own, if it has one, with HOST added (docs/network.md). Not with `--network`.",
  },
  {
    name: '--deny-host',
    value: 'HOST',
    repeatable: true,
    description: 'Refuse HOST (same forms as `--allow-host`) even where an allow entry covers it: deny wins. Makes the network an allowlist, as `--allow-host` does.',
  },
  {
    name: '--mode',
    value: 'auto|namespaces|landlock',
    choices: ['auto', 'namespaces', 'landlock'],
    default: 'auto',
    description: '`namespaces`: bubblewrap (mount, PID, network namespaces) plus Landlock and seccomp; `landlock`: Landlock and seccomp only; `auto`: namespaces where the host allows them, else landlock (the report says which and why).',
  },
  {
    name: '--compat',
    value: 'best-effort|hard',
    choices: ['best-effort', 'hard'],
    default: 'unset: refuse only when a protection asked for explicitly (`--mode namespaces`) is missing',
    description: 'When a protection cannot be enforced on this host: `hard` refuses to run (exit 125), `best-effort` runs and reports what is missing.',
  },
  {
    name: '--allow-unconfined-fs',
    description:
      'Run even when nothing would confine the filesystem (Landlock mode on a kernel without Landlock: seccomp only, every file the user can read is reachable). Without it such a run is refused whatever `--compat` says; with it the report says `status: none`.',
  },
  { name: '--cwd', value: 'DIR', default: 'the current directory', description: 'Working directory of the command, and the workspace (`${cwd}`) the profile grants.' },
  {
    name: '--timeout',
    value: 'MS',
    default: 'none',
    description: "Kill the command's whole process group after MS milliseconds (a positive integer): exit 137, `timedOut: true` in the JSON result.",
  },
]

export const RUN: CommandSpec = {
  name: 'run',
  summary: 'Run a command confined: by default the workspace-write profile on the current directory, network off.',
  operands: 'command',
  flags: [
    ...sandboxFlags,
    {
      name: '--json',
      description:
        "Capture the command's stdout and stderr and print one JSON document on stdout: the result with its enforcement report, or `{ \"error\": … }` when cordon fails (usage or setup). The command gets no stdin.",
    },
    help,
  ],
  exits: [
    { code: 'N', meaning: "the command's own exit status" },
    { code: '128+N', meaning: 'the command was killed by signal N (137, SIGKILL, after `--timeout`)' },
    usageExit,
    setupExit,
    { code: NOT_EXECUTABLE, meaning: 'the command was found but could not be executed' },
    { code: NOT_FOUND, meaning: 'the command was not found' },
  ],
}

export const EXPLAIN: CommandSpec = {
  name: 'explain',
  summary: 'What a profile would enforce here (mode, Landlock ABI, seccomp, paths, what is missing), without running anything. Takes the options of `cordon run`; `--timeout` is accepted and has no effect.',
  operands: 'none',
  flags: [...sandboxFlags, { name: '--json', description: 'Print the enforcement report as JSON; an error as `{ "error": … }`.' }, help],
  exits: [{ code: 0, meaning: 'the report was printed' }, usageExit, setupExit],
}

export const DOCTOR: CommandSpec = {
  name: 'doctor',
  summary: 'What this host can enforce (Landlock, seccomp, user namespaces, bubblewrap), and how to fix what it cannot.',
  operands: 'none',
  flags: [{ name: '--json', description: 'Print the report as JSON; an error as `{ "error": … }`.' }, help],
  exits: [
    { code: 0, meaning: 'at least one mode (namespaces or landlock) is available' },
    { code: 1, meaning: 'neither mode is available on this host' },
    usageExit,
    internalExit,
  ],
}

/**
 * The flags of `run` that decide the workspace `check` judges redirections
 * against (what the command may write, which paths stay protected): the
 * same values give the same write roots as the run would get.
 */
const CHECK_WORKSPACE_FLAGS = ['--profile', '--cwd', '--write']

export const CHECK: CommandSpec = {
  name: 'check',
  summary: 'The exec-policy decision for a command (allow, prompt, forbidden), without running it (docs/exec-policy.md).',
  operands: 'command-after-dashdash',
  flags: [
    {
      name: '--rules',
      value: 'FILE',
      repeatable: true,
      variadic: true,
      required: true,
      description: 'Rules file(s) to decide with; takes every following word up to the next flag or `--`, and may be repeated.',
    },
    ...sandboxFlags.filter((f) => CHECK_WORKSPACE_FLAGS.includes(f.name)),
    { name: '--json', description: 'Print the full decision (segments, matched rules, proposed amendment) as JSON; an error as `{ "error": … }`.' },
    help,
  ],
  exits: [
    { code: 0, meaning: 'allow: runs without a prompt' },
    { code: 1, meaning: 'prompt: needs approval (including "no rule matched, not known safe")' },
    { code: 2, meaning: 'forbidden: must not run' },
    usageExit,
    { code: DATA_ERROR, meaning: 'a rules file is missing or invalid (EX_DATAERR); the message names file:line:col' },
    { ...setupExit, meaning: 'the workspace could not be worked out: a bad profile or path (as `cordon run` would refuse it); nothing was decided' },
    internalExit,
  ],
}

/** In the order `cordon help` lists them. */
export const COMMANDS: readonly CommandSpec[] = [RUN, EXPLAIN, DOCTOR, CHECK]
