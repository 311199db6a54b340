/**
 * Issue 13 §2: with `rm` forbidden by a rule, shells given their options in
 * any form, and the common exec wrappers with theirs, are unwrapped and the
 * rule applies; where cordon cannot place a word that a prompt/forbidden
 * rule names, the command is asked — never allowed, never run unasked.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { createExecPolicy, type ExecPolicy } from '../../../../src/exec-policy/index.js'

let exec: ExecPolicy

beforeAll(async () => {
  exec = await createExecPolicy({
    sources: [
      {
        filename: 'wrappers.rules',
        text: [
          'prefix_rule(pattern = ["rm"], decision = "forbidden", justification = "use trash")',
          'prefix_rule(pattern = ["curl"], decision = "prompt")',
          'prefix_rule(pattern = ["git", "status"], decision = "allow")',
        ].join('\n'),
      },
    ],
  })
})

const decide = (argv: string[]) => exec.decide(argv)

describe('shells: options read as the shell reads them', () => {
  it.each([
    // the forms listed in issue 13 §2
    ['bash', '-ec', 'rm -rf src'],
    ['bash', '-c', 'rm -rf src', 'x'],
    ['sh', '-c', '--', 'rm -rf src'],
    ['bash', '--norc', '-c', 'rm -rf src'],
    ['dash', '-c', 'rm -rf src'],
    // more of the same grammar
    ['bash', '-c', '-e', 'rm -rf src'],
    ['bash', '-e', '-c', 'rm x', 'arg0', 'arg1'],
    ['bash', '--noprofile', '--norc', '-lc', 'rm x'],
    ['bash', '-o', 'pipefail', '-c', 'rm x'],
    ['bash', '+o', 'errexit', '-xc', 'rm x'],
    ['bash', '-O', 'extglob', '-c', 'rm x'],
    ['sh', '-ce', 'rm x'],
    ['zsh', '-f', '-c', 'rm x'],
    ['zsh', '--no-rcs', '-o', 'NO_RCS', '-c', 'rm x'],
    ['ksh', '-c', 'rm x'],
    ['mksh', '-ec', 'rm x'],
    ['ash', '-c', 'rm x'],
    ['/bin/dash', '-c', 'rm x'],
    ['busybox', 'sh', '-c', 'rm x'],
    ['busybox', 'ash', '-ec', 'rm x'],
    ['bash', '-c', 'dash -c "sh -ec \'rm x\'"'],
  ].map((argv) => [argv]))('%j is forbidden', (argv) => {
    const result = decide(argv)
    expect(result.decision).toBe('forbidden')
    expect(result.matchedRules.some((m) => m.matchedPrefix[0] === 'rm')).toBe(true)
  })

  it.each([
    [['bash', '-i', '-c', 'ls'], 'bash option -i'],
    [['bash', '-k', '-c', 'ls X=1'], 'bash option -k'],
    [['bash', '-O', 'expand_aliases', '-c', 'ls'], 'bash -O expand_aliases'],
    [['bash', '--debugger', '-c', 'ls'], 'bash option --debugger'],
    [['bash', '-o', 'histexpand', '-c', 'ls'], 'bash -o histexpand'],
    [['zsh', '--emulate', 'sh', '-c', 'ls'], 'zsh option --emulate'],
    [['zsh', '-o', 'extendedglob', '-c', 'ls'], 'zsh -o extendedglob'],
    [['sh', '-c'], 'sh -c without a script'],
  ])('%j: an option cordon cannot account for is asked', (argv, reason) => {
    const result = decide(argv)
    expect(result).toMatchObject({ decision: 'prompt', opaque: true })
    expect(result.segments[0]?.reason).toContain(reason)
  })

  it('a refused shell line still fires a forbidden rule on a command of its script', () => {
    expect(decide(['bash', '-i', '-c', 'rm -rf src']).decision).toBe('forbidden')
  })

  it.each([
    [['bash', '-c', 'ls', 'x']],
    [['sh', '-ec', 'git status']],
    [['bash', '--norc', '--noprofile', '-c', 'ls -la']],
    [['bash', '-o', 'pipefail', '-c', 'git status | wc -l']],
    [['dash', '-c', 'ls']],
    [['bash', '-c', 'command ls -la && exec git status']],
  ])('%j is allowed: the script is known safe', (argv) => {
    expect(decide(argv)).toMatchObject({ decision: 'allow', opaque: false })
  })

  it('busybox is a file PATH finds: decided as written, its applet checked', () => {
    expect(decide(['busybox', 'sh', '-c', 'ls'])).toMatchObject({ decision: 'prompt', source: 'default', opaque: false })
    expect(decide(['command', 'ls'])).toMatchObject({ decision: 'prompt', source: 'default' })
  })

  it('a shell without -c is decided as written (a script file, or stdin)', () => {
    expect(decide(['bash', '-e', 'rm'])).toMatchObject({ decision: 'prompt', opaque: false })
    expect(decide(['bash', '--norc'])).toMatchObject({ decision: 'prompt', source: 'heuristic-dangerous' })
  })
})

describe('exec wrappers: unwrapped with their option grammars', () => {
  it.each([
    // the forms listed in issue 13 §2
    ['taskset', '1', 'rm', 'x'],
    ['flock', 'f', 'rm', 'x'],
    ['setpriv', 'rm', 'x'],
    ['prlimit', 'rm', 'x'],
    // their options
    ['taskset', '-c', '0-3', 'rm', 'x'],
    ['taskset', '-ac', '0', 'rm'],
    ['flock', '-n', '-w', '5', 'lock', 'rm', 'x'],
    ['flock', '--timeout=5', 'lock', 'rm'],
    ['flock', 'lock', '-c', 'rm -rf src'],
    ['setpriv', '--reuid=1000', '--regid', '1000', '--clear-groups', '--nnp', 'rm', 'x'],
    ['setpriv', '--no-new', 'rm', 'x'],
    ['prlimit', '--nofile=1024', '-n1024', '--cpu', 'rm', 'x'],
    ['chrt', '10', 'rm', 'x'],
    ['chrt', '-f', '10', 'rm'],
    ['chrt', '-b', 'rm', 'x'],
    ['ionice', '-c', '3', 'rm', 'x'],
    ['ionice', '-c3', '-n7', 'rm'],
    ['nohup', 'rm', 'x'],
    ['stdbuf', '-oL', '-e', '0', 'rm', 'x'],
    ['time', '-p', 'rm', 'x'],
    ['time', '-f', '%e', '-o', 'out', 'rm'],
    ['command', 'rm', 'x'],
    ['command', '-p', 'rm', 'x'],
    ['exec', '-a', 'name', 'rm', 'x'],
    ['xargs', 'rm'],
    ['xargs', '-0', '-n', '1', '-P4', 'rm', '-f'],
    ['xargs', '-I{}', 'rm', '{}'],
    ['busybox', 'rm', 'x'],
    ['env', 'rm', 'x'],
    ['env', '-i', 'A=1', 'rm', 'x'],
    ['env', '-', 'rm'],
    ['env', '-u', 'HOME', '--chdir=/', 'rm'],
    ['nice', 'rm'],
    ['nice', '-n', '5', 'rm'],
    ['nice', '-10', 'rm'],
    ['timeout', '5', 'rm', 'x'],
    ['timeout', '-s', 'KILL', '-k', '1', '5', 'rm'],
    ['timeout', '--signal=KILL', '--preserve-status', '5', 'rm'],
    ['watch', 'rm', 'x'],
    ['watch', '-n', '1', '-x', 'rm', 'x'],
    ['su', '-c', 'rm -rf src', 'root'],
    ['runuser', '-u', 'nobody', '--', 'rm', 'x'],
    ['sudo', '-u', 'root', 'rm', 'x'],
    ['sudo', '-s', 'rm', 'x'],
    ['doas', '-u', 'root', 'rm'],
    ['setsid', '-f', 'rm'],
    ['unshare', '-r', '--mount', 'rm'],
    ['chroot', '/', 'rm'],
    ['unbuffer', '-p', 'rm'],
    ['pkexec', '--user', 'root', 'rm'],
    ['-', 'rm', 'x'],
    ['noglob', 'rm', 'x'],
    ['nice', 'timeout', '5', 'taskset', '1', 'flock', 'f', 'setpriv', 'rm', 'x'],
    ['bash', '-c', 'taskset 1 rm x && flock f rm y'],
  ].map((argv) => [argv]))('%j is forbidden', (argv) => {
    const result = decide(argv)
    expect(result.decision).toBe('forbidden')
    expect(result.matchedRules.some((m) => m.matchedPrefix[0] === 'rm')).toBe(true)
  })

  it.each([
    [['taskset', '-p', '1', '42']],
    [['command', '-v', 'rm']],
    [['ionice', '-p', '42']],
    [['chrt', '-m']],
    [['setpriv', '--dump']],
    [['xargs', '--show-limits']],
    [['env']],
    [['busybox', '--list']],
  ])('%j runs no command: the rule on rm does not apply', (argv) => {
    const result = decide(argv)
    expect(result.decision).not.toBe('forbidden')
    expect(result.matchedRules).toEqual([])
  })

  it('prlimit: a resource value in the next word is the command (`-n 1024 rm` runs 1024), so rm is only asked about', () => {
    const result = decide(['prlimit', '-n', '1024', 'rm', 'x'])
    expect(result).toMatchObject({ decision: 'prompt', source: 'rule' })
  })

  it('xargs: a rule longer than the words given could match what xargs appends', async () => {
    const strict = await createExecPolicy({ sources: [{ filename: 'x.rules', text: 'prefix_rule(pattern = ["rm", "-rf"], decision = "forbidden")' }] })
    expect(strict.decide(['xargs', 'rm']).decision).toBe('prompt')
    expect(strict.decide(['xargs', 'rm', '-rf']).decision).toBe('forbidden')
    expect(strict.decide(['xargs', 'ls']).matchedRules).toEqual([])
  })

  it('the wrapped command is checked; the wrapper is still decided as written', () => {
    const result = decide(['timeout', '5', 'git', 'status'])
    expect(result.segments[0]).toMatchObject({ argv: ['timeout', '5', 'git', 'status'], decision: 'prompt', source: 'default' })
  })

  it('a glob before the wrapped command: cordon cannot tell the command, rm is asked', () => {
    expect(decide(['bash', '-c', 'timeout * rm x']).decision).toBe('prompt')
  })
})

describe('a ruled program where cordon cannot tell whether it runs is asked (issue 13 §2)', () => {
  it.each([
    [['find', '.', '-exec', 'rm', '{}', ';']],
    [['mywrapper', 'rm', '-rf', 'src']],
    [['taskset', '--bogus', '1', 'rm', 'x']],
    [['env', '-S', 'rm -rf src']],
    [['fish', '-c', 'rm -rf src']],
    [['python3', '-c', 'import os; os.system("rm -rf src")']],
    [['./bash', '-c', 'rm x']],
    [['bash', '-c', 'make CC=/bin/rm']],
    [['parallel', 'curl', ':::', 'a', 'b']],
  ])('%j', (argv) => {
    const result = decide(argv)
    expect(result.decision).toBe('prompt')
    expect(result.source).toBe('rule')
    expect(result.segments.some((s) => s.reason?.includes('may run it'))).toBe(true)
    expect(result.proposedAmendment).toBeUndefined()
  })

  it('a rule allowing the outer command does not vouch for a ruled program in its arguments (strictest wins)', async () => {
    const both = await createExecPolicy({
      sources: [{ filename: 'b.rules', text: 'prefix_rule(pattern = ["rm"], decision = "forbidden")\nprefix_rule(pattern = ["find"], decision = "allow")' }],
    })
    expect(both.decide(['find', '.', '-exec', 'rm', '{}', ';'])).toMatchObject({ decision: 'prompt', source: 'rule' })
    expect(both.decide(['find', '.', '-name', 'x'])).toMatchObject({ decision: 'allow', source: 'rule' })
  })

  it.each([
    [['echo', 'rm', '-rf', 'src']],
    [['grep', '-r', 'rm', 'src']],
    [['git', 'status', 'rm']],
    [['ls', 'rm']],
  ])('%j: known safe or allowed by a rule — its arguments are not programs', (argv) => {
    expect(decide(argv).decision).toBe('allow')
  })

  it.each([[['git', 'rm', 'x']], [['cargo', 'build', '--release']], [['npm', 'run', 'trim']]])('%j: no ruled program in a position cordon cannot place', (argv) => {
    const result = decide(argv)
    expect(result.matchedRules).toEqual([])
  })
})

describe('variables that change what a shell runs make its script opaque', () => {
  it.each([
    [{ BASH_ENV: './evil.sh' }],
    [{ 'BASH_FUNC_ls%%': '() { rm -rf src; }' }],
    [{ ZDOTDIR: '.' }],
    [{ SHELLOPTS: 'xtrace' }],
    [{ ENV: './evil.sh' }],
  ])('the request env %j', (env) => {
    const result = exec.decide(['bash', '-lc', 'ls'], { env })
    expect(result).toMatchObject({ decision: 'prompt', opaque: true })
    expect(result.segments[0]?.reason).toContain('is set: it changes what bash runs')
  })

  it.each([
    [['env', 'BASH_FUNC_ls%%=() { rm -rf src; }', 'bash', '-c', 'ls']],
    [['bash', '-c', "env ZDOTDIR=/tmp zsh -c 'git status'"]],
    [['sudo', 'BASH_ENV=./x', 'bash', '-c', 'ls']],
    [['env', '-i', 'BASH_ENV=./x', 'timeout', '5', 'bash', '-c', 'ls']],
  ])('%j', (argv) => {
    expect(exec.decide(argv)).toMatchObject({ decision: 'prompt', opaque: true })
  })

  it('other variables change nothing', () => {
    expect(exec.decide(['bash', '-lc', 'ls'], { env: { FOO: '1', LANG: 'C' } })).toMatchObject({ decision: 'allow', opaque: false })
    expect(exec.decide(['env', 'FOO=1', 'bash', '-c', 'rm x']).decision).toBe('forbidden')
  })
})
