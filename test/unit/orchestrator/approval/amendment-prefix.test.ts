/**
 * The "always allow" prefix offered with an approval: the shortest prefix
 * that leaves no subcommand open, keeps a runner's target, and that no
 * appended argument makes destructive (a prefix rule matches anything
 * appended, and an allow rule is decided before the heuristics).
 */
import { describe, expect, it } from 'vitest'
import { amendmentPrefix } from '../../../../src/orchestrator/approval/amendment-prefix.js'
import { matchRules, parsePolicy } from '../../../../src/exec-policy/index.js'

describe('amendmentPrefix', () => {
  it.each([
    [['cargo', 'build', '--release', '--target', 'x86_64-unknown-linux-gnu'], ['cargo', 'build']],
    [['cargo', 'test'], ['cargo', 'test']],
    [['pytest', 'tests/test_api.py', '-k', 'login'], ['pytest']],
    [['npm', 'test', '--', '--watch=false'], ['npm', 'test']],
    [['npm', 'run', 'lint', '--', '--fix'], ['npm', 'run', 'lint']],
    [['npm', 'run', 'build:prod'], ['npm', 'run', 'build:prod']],
    [['gh', 'pr', 'checks', '1234'], ['gh', 'pr', 'checks']],
    [['docker', 'compose', 'up', '-d'], ['docker', 'compose', 'up']],
    [["/usr/local/bin/mytool", "--verbose", "./x"], ["/usr/local/bin/mytool"]],
    [['uv', 'run', 'pytest', '-x'], ['uv', 'run', 'pytest']],
    // Options before the subcommand: it cannot be located, so the whole command.
    [['npm', '--prefix', 'web', 'test'], ['npm', '--prefix', 'web', 'test']],
    [['pytest', '-k', 'login'], ['pytest', '-k', 'login']],
  ])('%j → %j', (argv, expected) => {
    expect(amendmentPrefix(argv)).toEqual(expected)
  })

  it.each([
    ['a runner with nothing after it', ['npm', 'run']],
    ['a runner whose target is a file that can change', ['uv', 'run', './scripts/x.py']],
    ['docker exec: any command in the container', ['docker', 'exec', 'c0ffee', 'ls']],
    ['a runner whose target is an interpreter', ['uv', 'run', 'python', '-c', 'print(1)']],
    ['npm exec of a wrapper', ['npm', 'exec', 'env', 'ls']],
    ['go run of a file', ['go', 'run', 'main.go']],
    ['docker exec after global options', ['docker', '--context', 'prod', 'exec', 'c0ffee', 'ls']],
    ['rm: appended -rf makes any prefix destructive', ['rm', 'build.log']],
    ['chmod: appended -R 777 makes any prefix destructive', ['chmod', '644', 'a.txt']],
    ['chown', ['chown', 'me', 'a.txt']],
    ['shred', ['shred', 'x']],
    ['nothing proposed', undefined],
    ['an empty argv', []],
  ])('none for %s', (_why, argv) => {
    expect(amendmentPrefix(argv as string[] | undefined)).toBeUndefined()
  })

  it('the prefix, as a rule, matches the command it was offered for', () => {
    const argv = ['cargo', 'build', '--release']
    const prefix = amendmentPrefix(argv)!
    const policy = parsePolicy(`prefix_rule(pattern=${JSON.stringify(prefix)}, decision="allow")`, 'x.rules')
    expect(matchRules(policy, argv)).toHaveLength(1)
    expect(matchRules(policy, ['cargo', 'publish'])).toHaveLength(0)
  })
})
