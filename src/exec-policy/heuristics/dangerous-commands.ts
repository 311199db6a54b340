/**
 * Destructive commands: when no rule matched, these always need an explicit
 * approval and are never offered as "always allow" amendments. The list is
 * about intent, so it looks at the basename even for `./rm` or `/tmp/x/rm`.
 * Wrappers that run another command (env, nice, nohup, timeout, time,
 * xargs; see wrappers.ts) are looked through so `xargs rm -rf` is caught too.
 */
import { anyFlag, gitSubcommandIndex, hasShortFlag, isLongFlag, positionals } from './flags.js'
import { basenameOf } from '../shell/program-name.js'
import type { GlobPattern } from '../shell/glob-pattern.js'
import { innerCommand } from '../shell/wrappers.js'

type Check = (args: readonly string[]) => string | undefined

const MKFS = /^(mkfs(\..+)?|mke2fs|mkswap|wipefs|fdisk|sfdisk|parted)$/
const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'fish'])

const CHECKS: ReadonlyMap<string, Check> = new Map<string, Check>([
  ['rm', (a) => (anyFlag(a, ['force', 'recursive'], 'frR') ? 'rm with -f/-r deletes without asking' : undefined)],
  ['sudo', () => 'runs a command as another user'],
  ['doas', () => 'runs a command as another user'],
  ['su', () => 'runs a command as another user'],
  ['pkexec', () => 'runs a command as another user'],
  ['dd', (a) => (a.some((x) => x.startsWith('of=')) ? 'dd writes to a file or device' : undefined)],
  ['shred', () => 'destroys file contents'],
  ['chmod', (a) => (recursive(a) && a.some((x) => /^(0?777|[ugoa]*\+rwx|[oa]\+w)$/.test(x)) ? 'recursive world-writable chmod' : undefined)],
  ['chown', (a) => (recursive(a) ? 'recursive chown' : undefined)],
  ['chgrp', (a) => (recursive(a) ? 'recursive chgrp' : undefined)],
  ['find', (a) => (a.includes('-delete') ? 'find -delete removes files' : undefined)],
  ['git', dangerousGit],
  ...['reboot', 'shutdown', 'halt', 'poweroff'].map((n): [string, Check] => [n, () => 'stops the machine']),
])

/** Git subcommands whose arguments CHECKS looks at (dangerousGit). */
const GIT_CHECKED = new Set(['push', 'reset', 'clean', 'checkout', 'restore', 'branch', 'stash', 'filter-branch', 'filter-repo', 'reflog'])

type Globs = readonly (GlobPattern | undefined)[] | undefined

/**
 * Why argv is destructive, or undefined. `argv[0]` may be a path; its
 * basename is used. A glob word (`globs[i]`) expands to whatever file names
 * are there — `rm *` with a file named `-rf` is `rm -rf …` — so a glob in
 * the arguments of a program the list checks makes it dangerous, except
 * after a git subcommand the checks ignore (`git add *.ts`).
 */
export function dangerousReason(argv: readonly string[], globs?: Globs, depth = 0): string | undefined {
  const program = argv[0]
  if (program === undefined || depth > 4) return undefined
  const name = basenameOf(program)
  const args = argv.slice(1)
  if (MKFS.test(name)) return 'creates or rewrites a file system or partition table'
  // A shell with no script argument runs whatever arrives on stdin (`curl … | sh`).
  if (SHELLS.has(name) && positionals(args).length === 0 && !args.some((a) => /^-[A-Za-z]*c/.test(a))) return 'shell reading commands from stdin'
  const own = CHECKS.get(name)?.(args)
  if (own) return own
  if (globs && CHECKS.has(name) && globMatters(name, argv, globs)) return `${name} with a glob: the file names it expands to could be options or operands that make it destructive`
  const inner = innerCommand(argv, globs)
  return inner?.kind === 'argv' ? dangerousReason(argv.slice(inner.offset), globs?.slice(inner.offset), depth + 1) : undefined
}

function globMatters(name: string, argv: readonly string[], globs: NonNullable<Globs>): boolean {
  const first = globs.findIndex((g) => g !== undefined)
  if (first < 0) return false
  if (name !== 'git') return true
  const at = gitSubcommandIndex(argv)
  return at < 0 || first <= at || GIT_CHECKED.has(argv[at] as string)
}

function recursive(args: readonly string[]): boolean {
  return anyFlag(args, ['recursive'], 'R')
}

function dangerousGit(args: readonly string[]): string | undefined {
  const argv = ['git', ...args]
  const at = gitSubcommandIndex(argv)
  if (at < 0) return undefined
  const sub = argv[at] as string
  const rest = argv.slice(at + 1)
  if (sub === 'push' && (anyFlag(rest, ['force', 'force-with-lease', 'force-if-includes', 'mirror', 'delete', 'prune'], 'fd') || rest.some((r) => /^[+:]/.test(r)))) {
    return 'git push that rewrites or deletes remote history'
  }
  if (sub === 'reset' && rest.some((r) => isLongFlag(r, 'hard') || isLongFlag(r, 'merge') || isLongFlag(r, 'keep'))) return 'git reset discarding work'
  if (sub === 'clean' && anyFlag(rest, ['force'], 'f')) return 'git clean deletes untracked files'
  if (sub === 'checkout' && (anyFlag(rest, ['force'], 'f') || rest.includes('--'))) return 'git checkout discarding changes'
  if (sub === 'restore' && !rest.includes('--staged')) return 'git restore discarding changes'
  if (sub === 'branch' && rest.some((r) => r === '-D' || (hasShortFlag(r, 'd') && hasShortFlag(r, 'f')))) return 'git branch force-delete'
  if (sub === 'stash' && (rest[0] === 'drop' || rest[0] === 'clear')) return 'git stash drop/clear loses work'
  if (sub === 'filter-branch' || sub === 'filter-repo') return 'git history rewrite'
  if (sub === 'reflog' && rest[0] === 'expire') return 'git reflog expire'
  return undefined
}
