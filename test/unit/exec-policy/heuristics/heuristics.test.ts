import { beforeAll, describe, expect, it } from 'vitest'
import { createExecPolicy, dangerousReason, isAmendmentBanned, isKnownSafe, type ExecPolicy } from '../../../../src/exec-policy/index.js'

const split = (cmd: string): string[] => cmd.split(' ')

describe('known-safe commands', () => {
  it.each([
    'ls -la',
    'cat README.md',
    'head -n 5 f',
    'tail -20 f',
    'wc -l f',
    'grep -rn foo src',
    'echo hi',
    'pwd',
    'true',
    'false',
    'find . -name x -type f',
    'find . -print0',
    'git status',
    'git --no-pager log --oneline',
    'git diff HEAD~1 -- src',
    'git show HEAD',
    'git branch',
    'git branch -a -v',
    'git branch --show-current',
    'rg -n foo',
    'rg --files',
    'sed -n 10p f',
    'sed -n 1,20p f',
    'base64 -d f',
    'sort -u f',
    'uniq f',
    'date +%s',
  ])('%s', (cmd) => {
    expect(isKnownSafe(split(cmd))).toBe(true)
  })
})

describe('not known safe (falls through to prompt)', () => {
  it.each([
    ['find . -exec rm {} ;', 'runs a program'],
    ['find . -execdir sh ;', 'runs a program'],
    ['find . -ok rm ;', 'runs a program'],
    ['find . -delete', 'deletes'],
    ['find . -fprint out', 'writes a file'],
    ['find . -fprintf out %p', 'writes a file'],
    ['git -c core.pager=sh log', 'config injection'],
    ['git --config-env=core.pager=X log', 'config injection'],
    ['git --exec-path=/tmp status', 'replaces git helpers'],
    ['git -C /elsewhere status', 'another repository and its config'],
    ['git log --output=/tmp/x', 'writes a file'],
    ['git diff --ext-diff', 'runs a configured program'],
    ['git branch new-branch', 'creates a branch'],
    ['git branch -D main', 'deletes a branch'],
    ['git push', 'not read-only'],
    ['git commit -m x', 'not read-only'],
    ['git', 'no subcommand'],
    ['rg --pre cat foo', 'runs a preprocessor'],
    ['rg --pre=cat foo', 'runs a preprocessor'],
    ['rg -z foo', 'runs decompressors'],
    ['rg --search-zip foo', 'runs decompressors'],
    ['sed -i s/a/b/ f', 'edits in place'],
    ['sed -n 1p;w/tmp/x f', 'sed script other than Np'],
    ['sed 1p f', 'without -n'],
    ['base64 -o out f', 'writes a file'],
    ['base64 --output=out f', 'writes a file'],
    ['sort -o out f', 'writes a file'],
    ['uniq in out', 'writes out'],
    ['date -s 2020-01-01', 'sets the clock'],
    ['hostname evil', 'sets the host name'],
    ['python3 -c print(1)', 'interpreter'],
    ['tee out', 'writes a file'],
    ['file -C -m magic', 'writes magic.mgc'],
    ['printenv', 'prints secrets from the environment'],
  ])('%s (%s)', (cmd) => {
    expect(isKnownSafe(split(cmd))).toBe(false)
  })
})

describe('dangerous commands', () => {
  it.each([
    'rm -f x',
    'rm -rf build',
    'rm -fr build',
    'rm -Rf build',
    'rm --recursive build',
    '/bin/rm -rf /',
    'sudo ls',
    'sudo -u nobody cat /etc/shadow',
    'doas reboot',
    'dd if=/dev/zero of=/dev/sda',
    'mkfs.ext4 /dev/sda1',
    'mkfs -t ext4 /dev/sda1',
    'wipefs -a /dev/sda',
    'chmod -R 777 /',
    'chmod -R a+rwx .',
    'chown -R nobody /',
    'git push --force',
    'git push -f origin main',
    'git push --force-with-lease',
    'git push origin +main',
    'git push origin :main',
    'git push --delete origin main',
    'git -C repo push --force',
    'git reset --hard HEAD~3',
    'git clean -fdx',
    'git checkout -- .',
    'git branch -D main',
    'git stash clear',
    'find . -delete',
    'shred -u f',
    'xargs rm -rf',
    'env X=1 rm -rf /',
    'nice -n 5 rm -rf /',
    'timeout 5 rm -rf /',
    'sh',
    'bash -s',
    'shutdown -h now',
  ])('%s', (cmd) => {
    expect(dangerousReason(split(cmd))).toBeDefined()
  })

  it.each(['rm x', 'rm -i x', 'git push', 'git reset HEAD f', 'chmod 644 f', 'chmod -R 755 d', 'dd if=a', 'git clean -n', 'bash script.sh', 'sh -c ls'])(
    'not dangerous: %s',
    (cmd) => {
      expect(dangerousReason(split(cmd))).toBeUndefined()
    },
  )
})

describe('"always allow" amendments', () => {
  it.each([
    'python3 x.py',
    'python -c x',
    'node -e x',
    'perl -e x',
    'ruby -e x',
    'bash -c x',
    'sh script.sh',
    'zsh',
    'env X=1 ls',
    'sudo make',
    'git status',
    'git commit -m x',
    'xargs ls',
    'npx prettier',
    'find . -name x',
    'sed -i s/a/b/ f',
    './build.sh',
    'bin/tool',
    'make all',
  ])('never offered for %s', (cmd) => {
    expect(isAmendmentBanned(split(cmd))).toBe(true)
  })

  it.each(['cargo build', 'npm test', 'pytest -q', '/usr/bin/cargo build'])('may be offered for %s', (cmd) => {
    expect(isAmendmentBanned(split(cmd))).toBe(false)
  })
})

describe('heuristics inside decisions', () => {
  let exec: ExecPolicy
  beforeAll(async () => {
    exec = await createExecPolicy({ sources: [{ filename: 'h.rules', text: 'prefix_rule(pattern = ["rm", "-rf", "build"], decision = "allow")' }] })
  })

  it('a matching rule wins over the heuristics', () => {
    expect(exec.decide(['rm', '-rf', 'build'])).toMatchObject({ decision: 'allow', source: 'rule' })
    expect(exec.decide(['rm', '-rf', 'src'])).toMatchObject({ decision: 'prompt', source: 'heuristic-dangerous' })
  })

  it('unmatched and unknown: prompt from the default, with a suggestion', () => {
    const result = exec.decide(['cargo', 'build', '--release'])
    expect(result).toMatchObject({ decision: 'prompt', source: 'default', opaque: false })
    expect(result.proposedAmendment).toEqual(['cargo', 'build', '--release'])
  })

  it('dangerous: prompt, never a suggestion', () => {
    const result = exec.decide(['sudo', 'cargo', 'build'])
    expect(result).toMatchObject({ decision: 'prompt', source: 'heuristic-dangerous' })
    expect(result.proposedAmendment).toBeUndefined()
  })

  it('known safe: allow', () => {
    expect(exec.decide(['git', 'status'])).toMatchObject({ decision: 'allow', source: 'heuristic-safe' })
  })

  it('a script with one unknown segment suggests that segment only', () => {
    const result = exec.decide(['bash', '-lc', 'ls && cargo test'])
    expect(result).toMatchObject({ decision: 'prompt', source: 'default' })
    expect(result.proposedAmendment).toEqual(['cargo', 'test'])
  })

  it('a script with two unknown segments gets no single suggestion', () => {
    expect(exec.decide(['bash', '-lc', 'cargo build && cargo test']).proposedAmendment).toBeUndefined()
  })

  it('rejects an empty argv', () => {
    expect(() => exec.decide([])).toThrow('argv must be a non-empty array of strings')
  })
})
