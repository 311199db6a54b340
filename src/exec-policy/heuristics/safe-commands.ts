/**
 * Known-safe commands: read-only tools that may run without a prompt when no
 * rule matched. "Safe" means they neither write files nor run other
 * programs with the arguments given — each entry's filter rejects the flags
 * that would (`find -exec`, `sort -o`, `rg --pre`, `git -c …`). Anything not
 * listed, or listed with a rejected flag, falls through to the default.
 */
import { anyFlag, positionals } from './flags.js'

type Filter = (args: readonly string[]) => boolean

const ANY: Filter = () => true

const SAFE: ReadonlyMap<string, Filter> = new Map<string, Filter>([
  ...['cat', 'cd', 'cut', 'echo', 'expr', 'false', 'grep', 'egrep', 'fgrep', 'head', 'id', 'ls', 'nl', 'paste', 'pwd', 'rev', 'seq', 'stat', 'tail', 'tr', 'true', 'uname', 'wc', 'which', 'whoami', 'basename', 'dirname', 'realpath', 'readlink', 'du', 'df', 'cmp', 'diff', 'comm', 'fold', 'md5sum', 'sha1sum', 'sha256sum', 'sha512sum', 'nproc', 'test'].map(
    (name): [string, Filter] => [name, ANY],
  ),
  // `find` runs programs (-exec, -ok…) and writes files (-delete, -fprint…).
  ['find', (a) => !a.some((x) => /^-(exec|execdir|ok|okdir|delete|fls|fprint|fprint0|fprintf)$/.test(x))],
  // `rg --pre CMD` and `-z/--search-zip` run other programs on each file.
  ['rg', (a) => !anyFlag(a, ['pre', 'hostname-bin', 'search-zip'], 'z')],
  ['base64', (a) => !anyFlag(a, ['output'], 'o')],
  // `file -C` compiles a magic file and writes it out.
  ['file', (a) => !anyFlag(a, ['compile'], 'C')],
  ['sort', (a) => !anyFlag(a, ['output', 'compress-program'], 'o')],
  // `uniq IN OUT` writes OUT.
  ['uniq', (a) => positionals(a).length <= 1],
  ['date', (a) => !anyFlag(a, ['set'], 's')],
  ['hostname', (a) => a.length === 0],
  // Only `sed -n N[,M]p [FILE…]`: sed scripts can write files (w) and, in GNU sed, run commands (e).
  ['sed', (a) => a.length >= 2 && a[0] === '-n' && /^[0-9]+(,[0-9]+)?p$/.test(a[1] as string) && positionals(a.slice(2)).length === a.length - 2],
  ['git', safeGit],
])

/** True when argv (argv[0] already reduced to a trusted bare name) is known read-only. */
export function isKnownSafe(argv: readonly string[]): boolean {
  const filter = SAFE.get(argv[0] ?? '')
  return filter !== undefined && filter(argv.slice(1))
}

/**
 * Safe whatever its arguments are: a glob there (which expands to file names
 * the command's author may have chosen, `-o` included) cannot make it write
 * or run anything. Commands with a filter are not safe with a glob.
 */
export function isKnownSafeForAnyArguments(name: string): boolean {
  return SAFE.get(name) === ANY
}

const GIT_READ_ONLY = new Set(['status', 'log', 'diff', 'show', 'branch'])
/** `git branch` flags that only list. Anything else (a name, -d, -m, -u…) changes refs. */
const BRANCH_LIST_FLAGS = /^(-a|-r|-v|-vv|-l|--list|--all|--remotes|--verbose|--show-current|--no-color|--color|--no-abbrev|--(format|sort|color|abbrev|contains|no-contains|merged|no-merged|points-at)=.*)$/

/**
 * Read-only git: status/log/diff/show/branch-listing with no global option
 * before the subcommand except `--no-pager`. Global options are where code
 * execution hides (`-c core.pager=…`, `--config-env`, `--exec-path`), and
 * `-C DIR` points git at a repository whose own config may run programs, so
 * it is refused too. `--output` writes files; `--ext-diff`/`--textconv` run
 * configured programs.
 */
function safeGit(args: readonly string[]): boolean {
  let i = 0
  while (args[i] === '--no-pager') i++
  const name = args[i]
  if (name === undefined || !GIT_READ_ONLY.has(name)) return false
  const rest = args.slice(i + 1)
  if (anyFlag(rest, ['output', 'ext-diff', 'textconv'])) return false
  return name !== 'branch' || rest.every((a) => BRANCH_LIST_FLAGS.test(a))
}
