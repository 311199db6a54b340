/**
 * Programs that run another command given in their own argv (`env X=1 rm`,
 * `sudo rm`, `timeout 5 rm`, `xargs rm`, `time rm`…). Rules are written for
 * the inner command, so the engine also checks it: a rule forbidding `rm`
 * must not be dodged by prefixing `env`. Looking through only ever makes a
 * decision stricter; the wrapper itself is still decided as written.
 */
import { basenameOf } from './program-name.js'

interface WrapperSyntax {
  /** Options that consume the following argument. */
  readonly valueOptions: ReadonlySet<string>
  /** Leading `NAME=value` words to skip (env). */
  readonly assignments?: boolean
  /** Positional arguments before the command (timeout's duration). */
  readonly leadingPositionals?: number
}

const syntax = (valueOptions: string[], extra: Partial<WrapperSyntax> = {}): WrapperSyntax => ({ valueOptions: new Set(valueOptions), ...extra })

const WRAPPERS: ReadonlyMap<string, WrapperSyntax> = new Map([
  ['env', syntax(['-u', '-C', '-S', '--unset', '--chdir', '--split-string'], { assignments: true })],
  ['sudo', syntax(['-u', '-g', '-h', '-p', '-C', '-D', '-r', '-t', '-U', '-T', '--user', '--group', '--host', '--prompt', '--chdir'])],
  ['doas', syntax(['-u', '-C'])],
  ['nice', syntax(['-n', '--adjustment'])],
  ['ionice', syntax(['-c', '-n', '-p', '--class', '--classdata'])],
  ['nohup', syntax([])],
  ['time', syntax(['-f', '-o', '--format', '--output'])],
  ['stdbuf', syntax(['-i', '-o', '-e', '--input', '--output', '--error'])],
  ['command', syntax([])],
  ['exec', syntax(['-a'])],
  ['setsid', syntax([])],
  ['timeout', syntax(['-s', '-k', '--signal', '--kill-after'], { leadingPositionals: 1 })],
  ['xargs', syntax(['-I', '-n', '-P', '-L', '-d', '-a', '-E', '-s', '--delimiter', '--arg-file', '--max-args', '--max-procs', '--max-lines', '--replace', '--eof'])],
])

/** The command `argv` runs on its behalf, one level deep, or undefined if argv is not a wrapper. */
export function innerCommand(argv: readonly string[]): string[] | undefined {
  const wrapper = WRAPPERS.get(basenameOf(argv[0] ?? ''))
  if (!wrapper) return undefined
  let i = 1
  while (i < argv.length && (argv[i] as string).startsWith('-') && argv[i] !== '-') {
    const option = argv[i] as string
    i += wrapper.valueOptions.has(option) ? 2 : 1
    if (option === '--') break
  }
  if (wrapper.assignments) while (i < argv.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(argv[i] as string)) i++
  i += wrapper.leadingPositionals ?? 0
  return i < argv.length ? argv.slice(i) : undefined
}
