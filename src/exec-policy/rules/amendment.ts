/**
 * "Always allow" suggestions. When a single plain command needs approval only
 * because no rule knew it, we may offer its exact argv as a new
 * `prefix_rule(pattern=…, decision="allow")`. We never offer one for
 * programs whose argv does not pin down what runs:
 *
 * - interpreters and shells (the code is in `-c`/`-e`, or in a script file
 *   the agent can rewrite after approval);
 * - wrappers that run another command (env, sudo, xargs, timeout, …);
 * - git as a whole: aliases, hooks and repository config (core.pager,
 *   core.fsmonitor, diff.external) let a repo the agent can write decide
 *   what `git <anything>` executes;
 * - programs whose *trailing* arguments can run code (find -exec, sed e/w,
 *   tar --to-command, rsync -e, ssh, editors and pagers, make --eval): a
 *   prefix rule matches anything appended, so approving `find . -name x`
 *   would also approve `find . -name x -exec sh -c …`;
 * - relative program paths (`./build.sh`): the file is whatever is there next time.
 */
import { basenameOf } from '../shell/program-name.js'
import { isShellName } from '../shell/shell-invocation.js'
import { WRAPPERS as WRAPPER_GRAMMARS } from '../shell/wrapper-table.js'

const INTERPRETER = /^(python[0-9.]*|pypy[0-9.]*|node|nodejs|deno|bun|perl[0-9.]*|ruby[0-9.]*|irb|php[0-9.]*|lua[0-9.]*|luajit|Rscript|R|osascript|pwsh|powershell|tclsh|wish|java|jshell|scala|groovy|swift|dotnet|erl|elixir|iex|julia|gawk|awk|mawk|nawk)$/
const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'mksh', 'fish', 'csh', 'tcsh', 'busybox', 'cmd', 'cmd.exe'])
const WRAPPERS = new Set([
  'env', 'sudo', 'doas', 'su', 'runuser', 'pkexec', 'xargs', 'nohup', 'nice', 'ionice', 'timeout', 'time', 'exec', 'eval',
  'command', 'builtin', 'stdbuf', 'setsid', 'chroot', 'unshare', 'nsenter', 'watch', 'parallel', 'script', 'expect',
  'strace', 'ltrace', 'gdb', 'flock', 'taskset', 'npx', 'pnpx', 'bunx', 'uvx', 'pipx', 'git',
])
const TRAILING_CODE = new Set([
  'find', 'sed', 'gsed', 'tar', 'gtar', 'rsync', 'ssh', 'scp', 'sftp', 'zip', 'vi', 'vim', 'nvim', 'emacs', 'nano', 'ed',
  'less', 'more', 'man', 'make', 'gmake', 'dd',
])

/** True when `argv` must never become an "always allow" rule. */
export function isAmendmentBanned(argv: readonly string[]): boolean {
  const program = argv[0]
  if (program === undefined) return true
  if (program.includes('/') && !program.startsWith('/')) return true
  const name = basenameOf(program)
  return INTERPRETER.test(name) || SHELLS.has(name) || isShellName(name) || WRAPPERS.has(name) || WRAPPER_GRAMMARS.has(name) || TRAILING_CODE.has(name)
}

/** The pattern to offer for argv, or undefined when banned. */
export function proposeAmendment(argv: readonly string[]): string[] | undefined {
  return isAmendmentBanned(argv) ? undefined : [...argv]
}
