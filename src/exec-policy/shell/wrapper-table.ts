/**
 * The option grammar of each program that runs a command from its own argv,
 * one entry per program, from its man page (util-linux, coreutils,
 * findutils, procps, sudo, bash builtins, zsh precommand modifiers). Every
 * one reads its options like getopt_long with a leading `+`: they stop at the
 * first word that is not an option, so the command is the first non-option
 * word after the positionals listed here.
 *
 * `command()` says what runs once the options are read: `i` is the first
 * non-option word. An option a grammar lists as ending the command form
 * (`taskset -p`, `command -v`) gives `none`.
 */
import type { Inner } from './wrappers.js'

export type LongArg = 'flag' | 'value' | 'optional'

export interface WrapperGrammar {
  /** Short options without a value. */
  readonly flags: string
  /** Short options with a value (attached, or the next word). */
  readonly values: string
  /** Short options whose value can only be attached (`-n1024`). */
  readonly optional: string
  readonly long: ReadonlyMap<string, LongArg>
  /** Leading `NAME=value` words are the environment (env). */
  readonly assignments?: boolean
  /** A lone `-` is this option (`env -` is `env -i`, `su -` is `su -l`). */
  readonly dashAlone?: string
  /** Words such as nice's `-10` that are options despite not being listed. */
  readonly numericOption?: RegExp
  readonly command: (opts: { readonly seen: ReadonlySet<string>; readonly values: ReadonlyMap<string, string> }, argv: readonly string[], i: number) => Inner
}

type Opts = Parameters<WrapperGrammar['command']>[0]

interface Spec {
  /** The man page or source the grammar follows, and anything surprising in it. */
  readonly why: string
  readonly flags?: string
  readonly values?: string
  readonly optional?: string
  /** Space-separated long names; `name=` takes a value, `name[=]` an optional attached one. */
  readonly long?: string
  readonly assignments?: boolean
  readonly dashAlone?: string
  readonly numericOption?: RegExp
  readonly command?: WrapperGrammar['command']
}

const NONE: Inner = { kind: 'none' }

/** The first non-option word and what follows it run. */
const runs: WrapperGrammar['command'] = (_o, argv, i) => (i < argv.length ? { kind: 'argv', offset: i } : NONE)

/** `n` positional words (a mask, a file, a duration) come before the command. */
const after =
  (n: number): WrapperGrammar['command'] =>
  (o, argv, i) =>
    runs(o, argv, i + n)

/** When any of these options was given, this form runs no command. */
const noneIf =
  (keys: string, then: WrapperGrammar['command']): WrapperGrammar['command'] =>
  (o, argv, i) =>
    keys.split(' ').some((k) => o.seen.has(k)) ? NONE : then(o, argv, i)

const seen = (o: Opts, keys: string): boolean => keys.split(' ').some((k) => o.seen.has(k))
const valueOf = (o: Opts, keys: string): string | undefined => keys.split(' ').map((k) => o.values.get(k)).find((v) => v !== undefined)

function grammar(spec: Spec): WrapperGrammar {
  const long = new Map<string, LongArg>()
  for (const word of (spec.long ?? '').split(' ').filter(Boolean)) {
    if (word.endsWith('[=]')) long.set(word.slice(0, -3), 'optional')
    else if (word.endsWith('=')) long.set(word.slice(0, -1), 'value')
    else long.set(word, 'flag')
  }
  return {
    flags: spec.flags ?? '',
    values: spec.values ?? '',
    optional: spec.optional ?? '',
    long,
    ...(spec.assignments ? { assignments: true } : {}),
    ...(spec.dashAlone ? { dashAlone: spec.dashAlone } : {}),
    ...(spec.numericOption ? { numericOption: spec.numericOption } : {}),
    command: spec.command ?? runs,
  }
}

/** su(1)/runuser(1): `-c CMD` is a shell string; other words after the user are arguments to the user's shell. */
const suCommand: WrapperGrammar['command'] = (o, argv, i) => {
  const script = valueOf(o, '-c --command --session-command')
  if (script !== undefined) return { kind: 'script', script }
  if (seen(o, '-u --user')) return runs(o, argv, i) // runuser -u USER COMMAND…: executed directly
  return i + 1 < argv.length ? { kind: 'unknown', reason: `${argv[0]}: arguments after the user go to the user's shell` } : NONE
}

const SPECS: readonly (readonly [string, Spec])[] = [
  ['env', { why: 'coreutils env(1); -S/--split-string makes the command out of a string', flags: 'i0v', values: 'uCS', long: 'ignore-environment null unset= chdir= split-string= debug block-signal[=] default-signal[=] ignore-signal[=] list-signal-handling help version', assignments: true, dashAlone: '-i',
    command: (o, argv, i) => (seen(o, '-S --split-string') ? { kind: 'unknown', reason: 'env -S: the command is split out of a string' } : seen(o, '--help --version') ? NONE : runs(o, argv, i)) }],
  ['nice', { why: 'coreutils nice(1); the obsolete `nice -N` form too', values: 'n', long: 'adjustment= help version', numericOption: /^--?[0-9]+$/, command: noneIf('--help --version', runs) }],
  ['nohup', { why: 'coreutils nohup(1)', long: 'help version', command: noneIf('--help --version', runs) }],
  ['timeout', { why: 'coreutils timeout(1): DURATION, then the command', flags: 'v', values: 'sk', long: 'signal= kill-after= preserve-status foreground verbose help version', command: noneIf('--help --version', after(1)) }],
  ['stdbuf', { why: 'coreutils stdbuf(1)', values: 'ioe', long: 'input= output= error= help version', command: noneIf('--help --version', runs) }],
  ['time', { why: 'GNU time(1) and the bash keyword (`time -p`)', flags: 'pvqa', values: 'fo', long: 'portability verbose quiet append format= output= help version', command: noneIf('--help --version', runs) }],
  ['command', { why: 'shell builtin: `command -v/-V` only looks the name up', flags: 'pvV', command: noneIf('-v -V', runs) }],
  ['exec', { why: 'shell builtin: exec [-cl] [-a name] command', flags: 'cl', values: 'a' }],
  ['nocorrect', { why: 'zsh precommand modifier' }],
  ['noglob', { why: 'zsh precommand modifier (globs stay literal: a glob word is already "any words")' }],
  ['-', { why: 'zsh precommand modifier: `- cmd` runs cmd with a dash before argv[0]' }],
  ['xargs', { why: 'findutils xargs(1): runs the command with words read from stdin appended, or put in place of -I/-i REPLACE', flags: '0prtxo', values: 'aEILnPsd', optional: 'eil',
    long: 'null interactive no-run-if-empty verbose exit open-tty show-limits arg-file= delimiter= max-args= max-procs= max-chars= process-slot-var= eof[=] replace[=] max-lines[=] help version',
    command: (o, argv, i) => {
      if (i >= argv.length || seen(o, '--help --version --show-limits')) return NONE
      const replace = seen(o, '-I -i --replace') ? (valueOf(o, '-I -i --replace') ?? '{}') : undefined
      const at = replace === undefined ? -1 : argv.findIndex((w, k) => k > i && w.includes(replace))
      return { kind: 'argv', offset: i, unknownFrom: at < 0 ? argv.length : at }
    } }],
  ['sudo', { why: 'sudo(8): VAR=value words before the command set its environment; -e/-l/-v/-K/-V run nothing; with -s/-i the words are escaped for the shell, so they still run as written', flags: 'AbEeHiKklNnPSsVv', values: 'aCcDgpRrTtUu', optional: 'h',
    long: 'askpass background bell close-from= chdir= preserve-env[=] edit group= set-home help host= login remove-timestamp reset-timestamp list non-interactive preserve-groups prompt= chroot= role= stdin shell type= command-timeout= other-user= user= version validate',
    assignments: true,
    command: noneIf('-e --edit -l --list -v --validate -V --version -K --remove-timestamp --help', runs) }],
  ['doas', { why: 'doas(1): -C checks a config, -L clears persisted auth', flags: 'Lns', values: 'uC', command: noneIf('-C -L', runs) }],
  ['su', { why: 'util-linux su(1): -c is a shell command string', flags: 'lmpfP', values: 'cgGsw', long: 'login preserve-environment command= session-command= fast group= supp-group= shell= pty whitelist-environment= help version', dashAlone: '-l', command: suCommand }],
  ['runuser', { why: 'util-linux runuser(1): -u USER COMMAND, or -c like su', flags: 'lmpfP', values: 'cgGswu', long: 'login preserve-environment command= session-command= fast group= supp-group= shell= pty whitelist-environment= user= help version', dashAlone: '-l', command: suCommand }],
  ['setsid', { why: 'util-linux setsid(1)', flags: 'cfw', long: 'ctty fork wait help version', command: noneIf('--help --version', runs) }],
  ['setpriv', { why: 'util-linux setpriv(1): -d/--dump and --list-caps run nothing', flags: 'd',
    long: 'nnp no-new-privs clear-groups keep-groups init-groups reset-env dump list-caps ruid= euid= rgid= egid= reuid= regid= groups= inh-caps= ambient-caps= bounding-set= securebits= pdeathsig= selinux-label= apparmor-profile= landlock-access= landlock-rule= seccomp-filter= help version',
    command: noneIf('-d --dump --list-caps --help --version', runs) }],
  ['taskset', { why: 'util-linux taskset(1): MASK then the command; -p works on a pid', flags: 'acp', long: 'all-tasks cpu-list pid help version', command: noneIf('-p --pid --help --version', after(1)) }],
  ['flock', { why: 'util-linux flock(1): FILE then the command, or FILE -c COMMAND-STRING (those exact words), or an fd number alone', flags: 'sexnouF', values: 'wE',
    long: 'shared exclusive unlock nonblock nb no-fork close verbose wait= timeout= conflict-exit-code= help version',
    command: (o, argv, i) => {
      if (seen(o, '--help --version') || i + 1 >= argv.length) return NONE
      const next = argv[i + 1]
      if (next !== '-c' && next !== '--command') return runs(o, argv, i + 1)
      const script = argv[i + 2]
      return script === undefined ? NONE : { kind: 'script', script }
    } }],
  ['prlimit', { why: 'util-linux prlimit(1): the resource options take an optional attached value (`-n1024`); a value in the next word is the command', optional: 'cdefilmnqrstuvxy', values: 'po',
    long: 'noheadings raw verbose pid= output= core[=] data[=] nice[=] fsize[=] sigpending[=] memlock[=] rss[=] nofile[=] msgqueue[=] rtprio[=] stack[=] cpu[=] nproc[=] as[=] locks[=] rttime[=] help version',
    command: noneIf('--help --version', runs) }],
  ['chrt', { why: 'util-linux chrt(1): PRIORITY then the command (newer versions let it be left out: a non-number is the command); -p works on a pid, -m lists', flags: 'abdfiormRvp', values: 'TPD',
    long: 'all-tasks batch deadline fifo idle other rr reset-on-fork verbose max pid sched-runtime= sched-period= sched-deadline= help version',
    command: noneIf('-m --max -p --pid --help --version', (o, argv, i) => runs(o, argv, /^[0-9]+$/.test(argv[i] ?? '') ? i + 1 : i)) }],
  ['ionice', { why: 'util-linux ionice(1): -p/-P/-u work on running processes', flags: 't', values: 'cnpPu', long: 'class= classdata= pid= pgid= uid= ignore help version', command: noneIf('-p -P -u --pid --pgid --uid --help --version', runs) }],
  ['unshare', { why: 'util-linux unshare(1); with no command it starts $SHELL', flags: 'fmuinpCTUrc', values: 'RwSG',
    long: 'mount[=] uts[=] ipc[=] net[=] pid[=] user[=] cgroup[=] time[=] fork mount-proc[=] map-root-user map-current-user map-auto kill-child[=] keep-caps propagation= setgroups= map-user= map-group= map-users= map-groups= root= wd= setuid= setgid= monotonic= boottime= load-interp= help version',
    command: noneIf('--help --version', runs) }],
  ['chroot', { why: 'coreutils chroot(1): NEWROOT then the command', long: 'userspec= groups= skip-chdir help version', command: noneIf('--help --version', after(1)) }],
  ['pkexec', { why: 'polkit pkexec(1)', long: 'user= disable-internal-agent keep-cwd help version', command: noneIf('--help --version', runs) }],
  ['unbuffer', { why: 'expect unbuffer(1)', flags: 'p' }],
  ['watch', { why: 'procps watch(1): the words are joined with spaces and run by `sh -c`, unless -x/--exec', flags: 'bcCeGgprtwx', values: 'nqs', optional: 'd',
    long: 'beep color no-color differences[=] errexit chgexit exec interval= equexit= shotsdir= precise no-rerun no-title no-wrap help version',
    command: (o, argv, i) => {
      if (i >= argv.length || seen(o, '--help --version')) return NONE
      return seen(o, '-x --exec') ? runs(o, argv, i) : { kind: 'script', script: argv.slice(i).join(' ') }
    } }],
  ['busybox', { why: 'busybox(1): `busybox APPLET args` runs the applet (sh, rm, …)', long: 'list list-full install help', command: noneIf('--list --list-full --install --help', runs) }],
]

export const WRAPPERS: ReadonlyMap<string, WrapperGrammar> = new Map(SPECS.map(([name, spec]) => [name, grammar(spec)]))
