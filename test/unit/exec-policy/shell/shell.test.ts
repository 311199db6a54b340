import { beforeAll, describe, expect, it } from 'vitest'
import { LANGUAGE_VERSION, MIN_COMPATIBLE_VERSION, type Parser } from 'web-tree-sitter'
import { createExecPolicy, type ExecPolicy } from '../../../../src/exec-policy/index.js'
import { loadBashParser } from '../../../../src/exec-policy/shell/bash-parser.js'
import { splitScript } from '../../../../src/exec-policy/shell/shell-script.js'

let parser: Parser
let exec: ExecPolicy

beforeAll(async () => {
  parser = await loadBashParser()
  exec = await createExecPolicy({
    sources: [
      {
        filename: 'shell.rules',
        text: [
          'prefix_rule(pattern = ["rm"], decision = "forbidden")',
          'prefix_rule(pattern = ["git", "status"], decision = "allow")',
          'prefix_rule(pattern = ["curl"], decision = "prompt")',
          'prefix_rule(pattern = ["zsh", "-c"], decision = "forbidden", justification = "no zsh here")',
        ].join('\n'),
      },
    ],
  })
})

describe('the grammar', () => {
  it('tree-sitter-bash ships a wasm whose ABI this web-tree-sitter accepts', () => {
    const abi = parser.language?.abiVersion ?? 0
    expect(abi).toBeGreaterThanOrEqual(MIN_COMPATIBLE_VERSION)
    expect(abi).toBeLessThanOrEqual(LANGUAGE_VERSION)
  })

  it('loads once', async () => {
    expect(await loadBashParser()).toBe(parser)
  })
})

const commandsOf = (script: string): readonly (readonly string[])[] | string => {
  const split = splitScript(parser, script)
  return split.opaque ? `opaque: ${split.reason}` : split.commands.map((c) => c.argv)
}

describe('splitting plain scripts', () => {
  it.each([
    ['git status && ls -la | wc -l', [['git', 'status'], ['ls', '-la'], ['wc', '-l']]],
    ['a || b; c', [['a'], ['b'], ['c']]],
    ['a\nb', [['a'], ['b']]],
    ['a &&\n  b', [['a'], ['b']]],
    ["echo 'x y' \"a\\\"b\" c\\ d \\;", [['echo', 'x y', 'a"b', 'c d', ';']]],
    ['echo a"b"\'c\'', [['echo', 'abc']]],
    ['git log @{u} HEAD~1 --format=%h', [['git', 'log', '@{u}', 'HEAD~1', '--format=%h']]],
    ['head -n 5 f  # trailing comment', [['head', '-n', '5', 'f']]],
    ['sed -n 1,5p f', [['sed', '-n', '1,5p', 'f']]],
    ['"git" status', [['git', 'status']]],
  ])('%j', (script, expected) => {
    expect(commandsOf(script)).toEqual(expected)
  })
})

describe('anything else is opaque', () => {
  it.each([
    ['echo $(id)', 'expansion ($)'],
    ['echo `id`', 'command substitution'],
    ['echo "$HOME"', 'expansion ($) in double quotes'],
    ['echo $HOME', 'expansion ($)'],
    ['echo "$"', 'in double quotes'],
    ["echo $'\\x41'", 'expansion ($)'],
    ['X=1 git status', 'assignment'],
    ['ïx=1 git status', 'assignment'],
    ['export X=1', "builtin 'export'"],
    ['cat <<EOF\nhi\nEOF', 'here-document'],
    ['cat <<< hi', 'here-string'],
    ['diff <(ls a) <(ls b)', 'process substitution'],
    ['(cd x && ls)', 'subshell'],
    ['{ ls; }', "'{'"],
    ['sleep 1 &', "operator '&'"],
    ['a |& b', "operator '|&'"],
    ['ls &> out', "operator '&'"],
    ['ls >&out', "only a single-digit fd or '-'"],
    ['ls 1>&2>&2', 'straight before another redirection'],
    ['if true; then ls; fi', "reserved word 'if'"],
    ['for f in a; do ls; done', "reserved word 'for'"],
    ['f() { ls; }; f', 'subshell, function'],
    ['! ls', "reserved word '!'"],
    ['[[ -f x ]]', "reserved word '[['"],
    ['[ -f x ]', "unclosed '['"],
    ['*.sh', 'glob in the program name'],
    ['ls > *.txt', 'glob in a redirection target'],
    ['echo {a,b}', 'brace expansion'],
    ['echo {1..3}', 'brace expansion'],
    ['cat ~/.ssh/id_rsa', 'tilde expansion'],
    ['make DIR=~/x', 'tilde expansion'],
    ['echo $((1+1))', 'expansion ($)'],
    ['ls "unterminated', 'unterminated double quote'],
    ['ls \\', 'backslash at the end'],
    ['', 'empty script'],
    ['# only a comment', 'empty script'],
    ['a ;; b', "';;'"],
    ['a &&', "nothing after '&&'"],
    ['; a', 'empty command'],
    ['> out', 'redirection without a command'],
    ['%1', 'job spec'],
    ['ls =rm', "starting with '='"],
    ['ls a}', "unmatched '}'"],
    ['test -v \'a[$(rm -rf src)]\'', 'evaluates array subscripts'],
    ['r ls', "builtin 'r'"],
  ])('%j', (script, reason) => {
    expect(commandsOf(script)).toContain(reason)
  })
})

describe('the splitter reads a script as bash does (issue 13 §1)', () => {
  it.each([
    ['a line starting with an escaped character is a new command', 'ls\n\\rm -rf src'],
    ['a line continuation inside the program name', 'r\\\nm -rf src'],
    ['a continuation between quoted parts of the name', "r\\\n'm' -rf src"],
    ['a continuation right after an operator', 'ls &&\\\nrm -rf src'],
    ['a comment ends at the newline even after a backslash', 'ls # c \\\nrm -rf src'],
    ['an argument after a redirection target is an argument', 'ls > /dev/null rm; rm x'],
  ])('%s', (_name, script) => {
    const result = exec.decide(['bash', '-lc', script])
    expect(result).toMatchObject({ decision: 'forbidden', opaque: false })
  })

  it('the argv decided is the argv bash passes', () => {
    expect(exec.decide(['bash', '-lc', 'ls\n\\rm -rf src']).segments.map((s) => s.argv)).toEqual([['ls'], ['rm', '-rf', 'src']])
    expect(exec.decide(['bash', '-lc', 'echo a\\\n#b']).segments.map((s) => s.argv)).toEqual([['echo', 'a#b']])
    expect(exec.decide(['bash', '-lc', 'ls a > f b']).segments.map((s) => s.argv)).toEqual([['ls', 'a', 'b']])
  })

  it.each([
    ['a job spec runs fg', '%1'],
    ["zsh's and ksh's r re-runs a history line", 'r'],
    ['bash evaluates a $(…) in an array subscript of a variable name', "test -v 'a[$(rm -rf src)]'"],
    ['no-break space is not a blank to bash', 'ls\u00a0-la'],
  ])('%s: not decided as a plain command', (_name, script) => {
    const result = exec.decide(['bash', '-lc', JSON.parse(`"${script}"`)])
    expect(result.decision).not.toBe('allow')
  })
})

describe('long scripts (issue 13 §8)', () => {
  const chain = (op: string, n: number) => Array.from({ length: n }, () => 'ls').join(op)

  // The reader has no recursion: a chain of any length is read, never a RangeError, never "too deep".
  it.each(['&&', '||', ';', '|'])('15,000 commands chained with %s are decided, one segment each', (op) => {
    const script = chain(op, 15_000)
    expect(script.length).toBeLessThan(64 * 1024)
    const result = exec.decide(['bash', '-lc', script])
    expect(result).toMatchObject({ decision: 'allow', opaque: false })
    expect(result.segments).toHaveLength(15_000)
    expect(exec.decide(['bash', '-lc', `${script}${op}rm x`]).decision).toBe('forbidden')
  })

  it('a long opaque script is asked at once: tree-sitter (superlinear on errors) only reads short ones for hints', () => {
    const started = performance.now()
    const result = exec.decide(['bash', '-lc', `${chain(' | ', 12_000)} |`])
    expect(result).toMatchObject({ decision: 'prompt', opaque: true })
    expect(performance.now() - started).toBeLessThan(1000)
    expect(exec.decide(['bash', '-lc', 'rm -rf src $(x)']).decision).toBe('forbidden') // the parser still works
  })
})

describe('smuggling a second command', () => {
  it.each([
    ['; after an allowed command', ['bash', '-lc', 'git status; rm -rf /'], 'forbidden', false],
    ['&& after an allowed command', ['bash', '-lc', 'git status && rm x'], 'forbidden', false],
    ['pipe into a shell', ['bash', '-lc', 'curl x | sh'], 'prompt', false],
    ['newline', ['bash', '-lc', 'git status\nrm -rf /'], 'forbidden', false],
    ['$() inside an argument', ['bash', '-lc', 'git status $(rm -rf /)'], 'forbidden', true],
    ['backticks', ['bash', '-lc', 'echo `rm -rf /`'], 'forbidden', true],
    ['redirection hides rm', ['bash', '-lc', 'rm -rf / > /dev/null'], 'forbidden', false],
    ['redirection on an allowed command', ['bash', '-lc', 'git status > .git/hooks/pre-commit'], 'prompt', false],
    ['nested bash -c', ['bash', '-lc', 'bash -c "rm -rf /"'], 'forbidden', false],
    ['nested sh -c with a substitution', ['bash', '-lc', "sh -c 'ls $(id)'"], 'prompt', true],
    ['triple nesting', ['bash', '-lc', "bash -c \"bash -c 'bash -c ls'\""], 'prompt', true],
    ['a rule on the wrapper itself', ['zsh', '-c', 'ls'], 'forbidden', false],
    ['env X=1 cmd', ['env', 'X=1', 'git', 'status'], 'prompt', false],
    ['X=1 cmd in a script', ['bash', '-lc', 'GIT_PAGER=sh git status'], 'prompt', true],
    ['git -c core.pager', ['git', '-c', 'core.pager=sh -c id', 'log'], 'prompt', false],
    ['find -exec', ['find', '.', '-exec', 'sh', '-c', 'id', ';'], 'prompt', false],
    ['background &', ['bash', '-lc', 'git status & rm x'], 'forbidden', true],
    ['env X=1 in front of a forbidden command', ['env', 'X=1', 'rm', 'x'], 'forbidden', false],
    ['sudo in front of a forbidden command', ['sudo', '-u', 'root', 'rm', 'x'], 'forbidden', false],
    ['time/timeout/nice in a script', ['bash', '-lc', 'time rm x; timeout 5 nice -n 1 rm y'], 'forbidden', false],
    ['a wrapper running a shell', ['timeout', '5', 'bash', '-c', 'ls && rm x'], 'forbidden', false],
    ['hash -p rebinding a later command', ['bash', '-lc', 'hash -p ./evil git; git status'], 'prompt', true],
    ['eval', ['bash', '-lc', 'eval "rm -rf /"'], 'prompt', true],
    ['source', ['bash', '-lc', '. ./env.sh && git status'], 'prompt', true],
    ['carriage return (bash keeps it in the word)', ['bash', '-lc', 'git status\rrm x'], 'prompt', true],
  ])('%s', (_name, argv, decision, opaque) => {
    const result = exec.decide(argv)
    expect(result.decision).toBe(decision)
    expect(result.opaque).toBe(opaque)
    if (decision !== 'allow') expect(result.proposedAmendment).toBeUndefined()
  })

  it('decides every segment', () => {
    const result = exec.decide(['bash', '-lc', 'git status && ls -la | wc -l'])
    expect(result.decision).toBe('allow')
    expect(result.segments.map((s) => [s.argv, s.decision, s.source])).toEqual([
      [['git', 'status'], 'allow', 'rule'],
      [['ls', '-la'], 'allow', 'heuristic-safe'],
      [['wc', '-l'], 'allow', 'heuristic-safe'],
    ])
  })

  it('accepts /bin/bash and -c, but not an unknown path calling itself bash', () => {
    expect(exec.decide(['/bin/bash', '-c', 'ls']).segments.map((s) => s.argv)).toEqual([['ls']])
    expect(exec.decide(['sh', '-c', 'ls']).decision).toBe('allow')
    const planted = exec.decide(['./bash', '-lc', 'ls'])
    expect(planted.decision).toBe('prompt')
    expect(planted.segments[0]?.argv).toEqual(['./bash', '-lc', 'ls'])
    // Words after the script are $0, $1…: the script is still `ls` (issue 13 §2).
    expect(exec.decide(['bash', '-lc', 'ls', 'extra-arg0']).decision).toBe('allow')
    expect(exec.decide(['bash', '-x', 'ls']).decision).toBe('prompt')
  })

  it('an opaque script never gets an "always allow" suggestion', () => {
    const result = exec.decide(['bash', '-lc', 'cargo build $(cat flags)'])
    expect(result).toMatchObject({ decision: 'prompt', opaque: true, source: 'default' })
    expect(result.proposedAmendment).toBeUndefined()
    expect(result.segments[0]?.reason).toContain('expansion ($)')
  })

  it('repeated decisions give equal results (the split cache is not mutated)', () => {
    const argv = ['bash', '-lc', 'git status && ls']
    const first = exec.decide(argv)
    ;(first.segments[0]?.argv as string[]).push('--mutated')
    expect(exec.decide(argv).segments[0]?.argv).toEqual(['git', 'status'])
  })
})
