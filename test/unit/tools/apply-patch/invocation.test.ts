/**
 * apply_patch reached as a command: argv and shell heredocs are read with
 * cordon's shell reader and routed to the patch path by orchestrator.exec
 * — no shell, no `apply_patch` program.
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readPatchInvocation } from '../../../../src/tools/apply-patch/invocation.js'
import { dir, setup } from '../../orchestrator/harness.js'
import { applySteps, type ApplierInput, type ApplierLine } from '../../../../src/tools/apply-patch/applier.js'

const P = '*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\n'

describe('readPatchInvocation', () => {
  it.each([
    ['argv', ['apply_patch', P]],
    ['argv, applypatch', ['/usr/local/bin/applypatch', P]],
    ['bash -lc heredoc, quoted delimiter', ['bash', '-lc', `apply_patch <<'EOF'\n${P}EOF\n`]],
    ['double-quoted delimiter, no final newline', ['/bin/sh', '-c', `apply_patch <<"PATCH"\n${P}PATCH`]],
    ['unquoted delimiter without expansions', ['zsh', '-c', `apply_patch <<EOF\n${P}EOF`]],
    ['<<- strips leading tabs', ['bash', '-c', `apply_patch <<-'EOF'\n${P.split('\n').map((l) => (l ? `\t${l}` : l)).join('\n')}\tEOF\n`]],
    ['one quoted word', ['bash', '-lc', `apply_patch '${P}'`]],
  ])('%s', (_n, argv) => {
    expect(readPatchInvocation(argv)).toEqual({ kind: 'patch', patch: P })
  })

  // The reader is skipped only for scripts with no quote, escape or expansion and neither name in their text.
  it.each([
    ['quotes inside the name', ['bash', '-lc', `'apply'_patch <<'EOF'\n${P}EOF\n`]],
    ['an escape inside the name', ['sh', '-c', `app\\ly_patch <<'EOF'\n${P}EOF\n`]],
    ['empty quotes inside applypatch', ['sh', '-c', `apply""patch '${P}'`]],
  ])('spelled without its literal text: %s', (_n, argv) => {
    expect(readPatchInvocation(argv)).toEqual({ kind: 'patch', patch: P })
  })

  it('an ordinary command is no patch', () => {
    for (const script of ['/bin/true', 'ls -la src && cat a.txt', 'make test 2>&1 | tail -n 5']) expect(readPatchInvocation(['/bin/sh', '-c', script])).toBeUndefined()
    expect(readPatchInvocation(['/bin/sh', '-c', 'apply_patch'])).toBeDefined() // the name alone is still read (and refused)
  })

  it('takes `cd DIR && apply_patch <<EOF` with its directory', () => {
    expect(readPatchInvocation(['bash', '-lc', `cd sub/dir && apply_patch <<'EOF'\n${P}EOF\n`])).toEqual({ kind: 'patch', patch: P, cwd: 'sub/dir' })
  })

  it.each([
    ['apply_patch with two arguments', ['apply_patch', P, 'x'], 'takes the patch as its one argument'],
    ['another command after the heredoc', ['bash', '-lc', `apply_patch <<'EOF'\n${P}EOF\nrm -rf src\n`], 'must be the only command'],
    ['a command before it', ['bash', '-lc', `rm x; apply_patch <<'EOF'\n${P}EOF\n`], 'must be the only command'],
    ['|| instead of &&', ['bash', '-lc', `cd d || apply_patch <<'EOF'\n${P}EOF\n`], 'must be the only command'],
    ['a redirection', ['bash', '-lc', `apply_patch > log <<'EOF'\n${P}EOF\n`], 'must be the only command'],
    ['no closing delimiter', ['bash', '-lc', `apply_patch <<'EOF'\n${P}`], 'has no closing EOF line'],
    ['an unquoted delimiter over a $', ['bash', '-lc', `apply_patch <<EOF\n*** Begin Patch\n*** Add File: a\n+$HOME\n*** End Patch\nEOF\n`], "write <<'EOF'"],
    ['a pipeline', ['bash', '-lc', `echo "${P}" | apply_patch`], 'must be the only command'],
    // A shell takes these as cd's options or $OLDPWD, not as a directory named so: the patch would land elsewhere than the model meant.
    ['cd -', ['bash', '-lc', `cd - && apply_patch <<'EOF'\n${P}EOF\n`], 'must be the only command'],
    ['cd -P', ['bash', '-lc', `cd -P && apply_patch <<'EOF'\n${P}EOF\n`], 'must be the only command'],
  ])('%s is invalid, never run by a shell', (_n, argv, reason) => {
    const r = readPatchInvocation(argv)
    expect(r?.kind).toBe('invalid')
    expect(r?.kind === 'invalid' && r.reason).toContain(reason)
  })

  it.each([
    ['a plain command', ['ls', '-l']],
    ['a script that mentions apply_patch as a word', ['bash', '-lc', `grep apply_patch notes.txt`]],
    ['a heredoc to another program', ['bash', '-lc', `cat <<'EOF'\napply_patch\nEOF\n`]],
    ['a shell reading a file', ['bash', 'script.sh']],
  ])('%s is no patch', (_n, argv) => {
    expect(readPatchInvocation(argv)).toBeUndefined()
  })
})

describe('orchestrator.exec routes a patch invocation to apply_patch', () => {
  const steps: Parameters<typeof setup>[1] = ({ argv, runOptions }) => {
    if (!String(argv.at(-1)).endsWith('applier.js')) return { exitCode: 99, stderr: 'a shell ran' }
    const lines: ApplierLine[] = []
    applySteps((JSON.parse(String(runOptions?.input)) as ApplierInput).steps, (l) => lines.push(l))
    return { stdout: lines.map((l) => `${JSON.stringify(l)}\n`).join('') }
  }

  it('a bash heredoc is applied by the sandboxed applier, asked as a patch, relative to its cd', async () => {
    const ws = dir('ws')
    mkdirSync(join(ws, 'sub'))
    const { orch, asked, fake } = setup({}, steps, ws)
    const o = await orch.exec({ command: ['bash', '-lc', `cd sub && apply_patch <<'EOF'\n${P}EOF\n`] })
    expect(o.status).toBe('completed')
    expect(readFileSync(join(ws, 'sub/a'), 'utf8')).toBe('x\n')
    expect(fake.runs.map((r) => r.argv[0])).toEqual([process.execPath])
    expect(asked[0]).toMatchObject({ promptClass: 'patch', command: ['apply_patch', join(ws, 'sub/a')] })
    expect(o.command).toEqual(['apply_patch', join(ws, 'sub/a')])
  })

  it('an invalid invocation runs nothing and says why', async () => {
    const ws = dir('ws')
    writeFileSync(join(ws, 'keep'), '')
    const { orch, fake, asked } = setup({}, steps, ws)
    const o = await orch.exec({ command: ['bash', '-lc', `apply_patch <<'EOF'\n${P}EOF\nrm keep\n`] })
    expect(o).toMatchObject({ status: 'forbidden', reason: expect.stringContaining('must be the only command') })
    expect(fake.runs).toHaveLength(0)
    expect(asked).toHaveLength(0)
  })
})
