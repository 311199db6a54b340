/**
 * Issue 11, last surprise: redirections to the workspace or /dev/null, fd
 * duplications, and globs no longer make a script opaque; `$()`, backticks
 * and process substitution still do. A write is not read-only, and a write
 * outside the workspace (or to a protected path in it) is asked, whatever a
 * rule or the safe list says about the command.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createExecPolicy, type DecideOptions, type ExecPolicy } from '../../../../src/exec-policy/index.js'
import { removeTempDirs, tempDir } from '../../../helpers/temp.js'

let exec: ExecPolicy
// Made here, not in beforeAll: the it.each tables below name them.
const ws = tempDir('cordon-redir-ws-')
const outside = tempDir('cordon-redir-out-')
const options: DecideOptions = { workspace: { cwd: ws, writableRoots: [ws] } }

beforeAll(async () => {
  exec = await createExecPolicy({
    sources: [
      {
        filename: 'redirections.rules',
        text: [
          'prefix_rule(pattern = ["npm", "test"], decision = "allow")',
          'prefix_rule(pattern = ["cat"], decision = "allow")',
          'prefix_rule(pattern = ["git", "push"], decision = "prompt")',
          'prefix_rule(pattern = ["git", "status"], decision = "allow")',
          'prefix_rule(pattern = ["rm", "-rf"], decision = "forbidden")',
        ].join('\n'),
      },
    ],
  })
  mkdirSync(join(ws, 'sub'))
  symlinkSync(join(outside, 'target'), join(ws, 'dangling'))
  writeFileSync(join(outside, 'profile'), '')
  symlinkSync(join(outside, 'profile'), join(ws, 'link-out'))
})

afterAll(removeTempDirs)

const decide = (script: string, opts: DecideOptions = options) => exec.decide(['bash', '-lc', script], opts)

describe('plain words now', () => {
  it.each([
    ['npm test 2>&1', 'allow', 'rule'],
    ['npm test 2>&1 | tail -20', 'allow', 'rule'],
    ['npm test >&2', 'allow', 'rule'],
    ['npm test 2>/dev/null', 'allow', 'rule'],
    ['npm test > test.log 2>&1', 'allow', 'rule'],
    ['ls *.md', 'allow', 'heuristic-safe'],
    ['wc -l src/*.ts docs/?.md', 'allow', 'heuristic-safe'],
    ['grep -n TODO *.ts 2>/dev/null', 'allow', 'heuristic-safe'],
    ['cat < input.txt', 'allow', 'rule'],
    ['git status 3>&- 0<&-', 'allow', 'rule'],
  ])('%j → %s (%s)', (script, decision, source) => {
    expect(decide(script)).toMatchObject({ decision, source, opaque: false })
  })

  it.each([['echo $(id) > f'], ['ls `pwd`'], ['diff <(ls a) <(ls b)'], ['ls > >(tee x)'], ['ls > $OUT'], ['ls > ~/x'], ['cat <<EOF\nx\nEOF']])('%j stays opaque', (script) => {
    expect(decide(script)).toMatchObject({ decision: 'prompt', opaque: true })
  })
})

describe('the decision says what the redirections are', () => {
  it('each segment carries its redirections, in order: two scripts that differ only there decide differently', () => {
    const a = decide('npm test > log 2>&1')
    expect(a.segments[0]?.redirects).toEqual([
      { fd: 1, op: '>', target: 'log' },
      { fd: 2, op: '>&', target: '1' },
    ])
    const b = decide(`npm test > ${outside}/log`)
    expect(b.segments[0]?.argv).toEqual(a.segments[0]?.argv)
    expect(b.segments[0]?.redirects).not.toEqual(a.segments[0]?.redirects)
    expect(decide('npm test').segments[0]?.redirects).toBeUndefined()
  })
})

describe('a write is not read-only', () => {
  it('a known-safe command writing into the workspace is an unknown command (runs in the sandbox in on-request mode)', () => {
    const result = decide('ls -la > listing.txt')
    expect(result).toMatchObject({ decision: 'prompt', source: 'default', opaque: false })
    expect(result.segments[0]?.reason).toContain('not read-only')
  })

  it('a relative path into a subdirectory, an absolute path into the workspace, append and clobber', () => {
    for (const script of ['ls > sub/x', `ls > ${ws}/x`, 'ls >> log', 'ls >| log', 'ls 2> err', 'cat f <> rw']) {
      expect(decide(script).source, script).not.toBe('heuristic-dangerous')
    }
  })
})

describe('a write outside the workspace is asked (issue 11)', () => {
  it.each([
    [`cat x > ${outside}/.bashrc`, 'outside the writable roots'],
    [`cat x >> ${outside}/notes`, 'outside the writable roots'],
    ['cat x > link-out', 'outside the writable roots'],
    ['cat x > dangling', 'dangling symlink'],
    ['git status > .git/hooks/pre-commit', '.git/'],
    ['cat x > .bashrc', 'start-up'],
    ['cat x > sub/.zshrc', 'start-up'],
    ['cat rule > default.rules', 'rules file'],
    ['cat x > .codex/config', '.codex/'],
    ['cd sub && cat x > out', 'a cd earlier in the script'],
    ['cat < /dev/tcp/127.0.0.1/80', 'network connection'],
    ['cat x > /dev/tcp/127.0.0.1/80', 'network connection'],
    [`ls 2> ${outside}/e`, 'outside the writable roots'],
  ])('%j', (script, reason) => {
    const result = decide(script)
    expect(result).toMatchObject({ decision: 'prompt', source: 'heuristic-dangerous', opaque: false })
    expect(result.segments.find((s) => s.decision === 'prompt')?.reason).toContain(reason)
    expect(result.proposedAmendment).toBeUndefined()
  })

  it('a forbidden command stays forbidden', () => {
    expect(decide(`rm -rf x > ${outside}/y`).decision).toBe('forbidden')
  })

  it('after a cd, fd duplications and /dev/null are still fine, and absolute workspace paths too', () => {
    expect(decide('cd sub && npm test 2>&1 >/dev/null').decision).toBe('allow')
    expect(decide(`cd sub && npm test > ${ws}/log`).decision).toBe('allow')
  })

  it('without a workspace, any write to a file is asked (the safe default)', () => {
    expect(decide('npm test > log', {})).toMatchObject({ decision: 'prompt', source: 'heuristic-dangerous' })
    expect(decide('npm test 2>&1 >/dev/null', {})).toMatchObject({ decision: 'allow' })
  })

  it("the workspace defaults to resolve's cwd and writable roots (what the orchestrator passes)", () => {
    const resolve = { PATH: '/usr/bin:/bin', cwd: ws, writableRoots: [ws] }
    expect(decide('npm test > log', { resolve }).source).toBe('rule')
    expect(decide(`npm test > ${outside}/log`, { resolve }).source).toBe('heuristic-dangerous')
  })

  it('invalid workspace options are a PolicyError, not a guess', () => {
    expect(() => decide('ls > x', { workspace: { cwd: '', writableRoots: [ws] } })).toThrow(/invalid workspace options/)
  })

  it('profile protected paths can be given too', () => {
    const opts = { workspace: { cwd: ws, writableRoots: [ws], protectedPaths: [join(ws, 'sub')] } }
    expect(decide('npm test > sub/log', opts).source).toBe('heuristic-dangerous')
  })
})

describe('globs stand for the names they could match', () => {
  it('a glob could make a prompt or forbidden rule match: asked, not forbidden', () => {
    expect(decide('git pu* origin')).toMatchObject({ decision: 'prompt', source: 'rule' })
    expect(decide('rm * x')).toMatchObject({ decision: 'prompt', source: 'rule' })
  })

  it('a glob that cannot match the rule leaves it alone', () => {
    const result = decide('rm *.o')
    expect(result.matchedRules).toEqual([])
    expect(result).toMatchObject({ decision: 'prompt', source: 'heuristic-dangerous' }) // rm with a glob: a file named -rf
  })

  it('an allow rule must match the words before the glob', () => {
    expect(decide('git st* ').decision).toBe('prompt')
    expect(decide('git status *.md')).toMatchObject({ decision: 'allow', source: 'rule' })
  })

  it('a known-safe command is safe with a glob only when no argument can make it write or run code', () => {
    expect(decide('cat *.md').decision).toBe('allow')
    expect(decide('sort *.txt')).toMatchObject({ decision: 'prompt', source: 'default' }) // a file named -o
    expect(decide('find * -name x')).toMatchObject({ decision: 'prompt', source: 'heuristic-dangerous' }) // a file named -delete
  })

  it('git with a glob after a subcommand the dangerous list ignores is not dangerous', () => {
    expect(decide('git add *.ts').source).toBe('default')
    expect(decide('git checkout *.ts').source).toBe('heuristic-dangerous')
  })

  it('the decision says which words are globs', () => {
    expect(decide('wc -l *.md src/x.ts ?.txt').segments[0]?.globs).toEqual([2, 4])
    expect(decide('wc -l a.md').segments[0]?.globs).toBeUndefined()
  })

  it('no "always allow" rule made of a glob word', () => {
    const result = decide('cp *.md out/')
    expect(result).toMatchObject({ decision: 'prompt', source: 'default' })
    expect(result.proposedAmendment).toBeUndefined()
  })
})
