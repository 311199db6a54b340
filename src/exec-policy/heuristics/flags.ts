/**
 * Small helpers for looking at command-line flags the way getopt-style
 * tools read them: `--long`, `--long=value`, and clustered short flags
 * (`-rf` is `-r -f`).
 */

/** `--name` or `--name=…`. */
export function isLongFlag(arg: string, name: string): boolean {
  return arg === `--${name}` || arg.startsWith(`--${name}=`)
}

/** A short-flag cluster (`-rf`) containing `letter`. Stops at digits, which usually start a value. */
export function hasShortFlag(arg: string, letter: string): boolean {
  if (!/^-[A-Za-z]/.test(arg)) return false
  const cluster = /^-([A-Za-z]+)/.exec(arg)?.[1] ?? ''
  return cluster.includes(letter)
}

/** True if any argument is one of the given long flags or short letters. */
export function anyFlag(args: readonly string[], longs: readonly string[], shorts = ''): boolean {
  return args.some((arg) => {
    if (arg.startsWith('--')) return longs.some((name) => isLongFlag(arg, name))
    return [...shorts].some((letter) => hasShortFlag(arg, letter))
  })
}

/** Arguments that are not flags (a lone `-` is stdin, so it counts as positional). */
export function positionals(args: readonly string[]): string[] {
  return args.filter((arg) => arg === '-' || !arg.startsWith('-'))
}

/**
 * Index of git's subcommand in argv (argv[0] is git), skipping global
 * options and the values of those that take one; -1 when there is none.
 */
export function gitSubcommandIndex(argv: readonly string[]): number {
  const takesValue = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--config-env', '--super-prefix'])
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i] as string
    if (!arg.startsWith('-')) return i
    if (takesValue.has(arg)) i++
  }
  return -1
}
