/**
 * What a split says the shell will do, and whether a run agrees with it.
 *
 * From the splitter's commands and operators: which commands run (every stub
 * exits 0 except `no`, a pipeline's status is its last command's, `&&` runs
 * the next pipeline on 0, `||` on non-zero, a skipped pipeline leaves the
 * status as it was), with which argv (a glob word stands for one or more
 * words its pattern matches, or itself), and which files their write
 * redirections create. The run agrees when the executions are the same
 * multiset (pipelines run concurrently), the created files are the same set
 * and the shell printed no error.
 */
import type { ScriptCommand, Operator } from '../../../../../src/exec-policy/shell/script-reader.js'
import type { Run } from './shells.js'

export interface Expectation {
  readonly executed: readonly ScriptCommand[]
  readonly created: readonly string[]
  /** A redirection is expected to fail (an input file that is not there): the shell then says so on stderr. */
  readonly errors: boolean
  /** A builtin's exit status decides whether what follows runs: the run cannot be predicted, only the reading. */
  readonly unpredictable: boolean
}

const WRITES = new Set(['>', '>>', '>|', '<>'])
/** Builtins of some shell under test that a generated name can spell (`"c\<newline>d"` is cd): no stub runs for them. */
const BUILTINS = new Set(['cd', 'echo', 'test', '[', 'true', 'false', 'pwd', 'printf', 'kill', 'type', 'umask', 'wait', 'read', 'times', 'command', 'exec', 'time', 'exit', 'return', 'shift', 'ulimit', 'jobs', 'fg', 'bg', 'print', 'whence', 'which', 'dirs', 'pushd', 'popd', 'history', 'getopts', 'help', 'local', 'logout', 'suspend', 'caller', 'compgen', 'complete'])

export function expectationOf(commands: readonly ScriptCommand[], operators: readonly Operator[], fixtures: readonly string[]): Expectation {
  const executed: ScriptCommand[] = []
  const created = new Set<string>()
  let errors = false
  let unpredictable = false
  /** Redirections in order: writes create their file; reading a missing file, or duplicating a closed fd, fails the command before it runs. */
  const redirect = (command: ScriptCommand): boolean => {
    const closed = new Set<number>()
    for (const r of command.redirects ?? []) {
      if (r.op === '<&' || r.op === '>&') {
        if (r.target === '-') closed.add(r.fd)
        else if (closed.has(Number(r.target[0]))) return false
        else closed.delete(r.fd)
        continue
      }
      closed.delete(r.fd)
      if (r.op === '<' && !r.target.startsWith('/') && !fixtures.includes(r.target) && !created.has(r.target)) return false
      if (!WRITES.has(r.op)) continue
      if (r.target === '/dev/null') continue
      if (r.target.includes('/')) return false // the fixture directory has no subdirectories, and nothing else is writable
      created.add(r.target)
    }
    // A program name with a slash is a path, and there is no such file; the stubs are found through PATH.
    return !(command.argv[0] as string).includes('/')
  }
  let status = 0
  let i = 0
  let before: Operator | undefined
  while (i < commands.length) {
    let end = i
    while (operators[end] === '|') end++
    const runs = before === undefined || before === ';' || (before === '&&' && status === 0) || (before === '||' && status !== 0)
    if (runs) {
      let last = 0
      for (let k = i; k <= end; k++) {
        const command = commands[k] as ScriptCommand
        const ok = redirect(command)
        if (!ok) errors = true
        else if (BUILTINS.has(command.argv[0] as string)) {
          errors = true // runs, unrecorded, and may complain
          if (k === end && (operators[end] === '&&' || operators[end] === '||')) unpredictable = true
        } else executed.push(command)
        last = !ok || command.argv[0] === 'no' ? 1 : 0
      }
      status = last
    }
    before = operators[end]
    i = end + 1
  }
  return { executed, created: [...created].sort(), errors, unpredictable }
}

/** Undefined when the run agrees; otherwise what differs. */
export function disagreement(expected: Expectation, run: Run): string | undefined {
  if (run.stderr !== '' && !expected.errors) return `the shell printed an error: ${JSON.stringify(run.stderr.slice(0, 300))}`
  if (run.executed.length !== expected.executed.length || !assign(expected.executed, run.executed, new Set())) {
    return `expected ${JSON.stringify(expected.executed.map(show))} to run (a glob word standing for the names it matches); the shell ran ${JSON.stringify(run.executed)}`
  }
  const created = [...run.created].sort()
  if (JSON.stringify(created) !== JSON.stringify(expected.created)) return `files created: ${JSON.stringify(created)}, expected ${JSON.stringify(expected.created)}`
  return undefined
}

/** One recorded execution per expected command (backtracking: two glob commands may fit the same records). */
function assign(commands: readonly ScriptCommand[], records: readonly string[][], used: Set<number>): boolean {
  const [command, ...rest] = commands
  if (command === undefined) return true
  for (let i = 0; i < records.length; i++) {
    if (used.has(i) || !fits(command, records[i] as string[])) continue
    used.add(i)
    if (assign(rest, records, used)) return true
    used.delete(i)
  }
  return false
}

/** Does a recorded argv fit the command (each glob word standing for ≥ 1 words it matches, or itself)? */
function fits(command: ScriptCommand, argv: readonly string[]): boolean {
  const want = command.argv
  const globs = command.globs
  const match = (w: number, a: number): boolean => {
    if (w === want.length) return a === argv.length
    if (a >= argv.length) return false
    const glob = globs?.[w]
    if (!glob) return want[w] === argv[a] && match(w + 1, a + 1)
    for (let end = a + 1; end <= argv.length; end++) {
      const words = argv.slice(a, end)
      const ok = words.length === 1 && words[0] === glob.word ? true : words.every((word) => glob.regex.test(word))
      if (!ok) break
      if (match(w + 1, end)) return true
    }
    return false
  }
  return match(0, 0)
}

function show(command: ScriptCommand): string {
  return JSON.stringify(command.argv)
}
