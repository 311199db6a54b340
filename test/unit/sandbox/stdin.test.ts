/**
 * stdin defaults (issue 11, bug 3). spawn() follows node:child_process and
 * execa: `'pipe'`, so `child.stdin` is a stream the caller writes and ends.
 * run() hands out no stream, so its default is `'ignore'` (end of file at
 * once), and an explicit `stdin: 'pipe'` without `input` is closed at once
 * — a command that reads stdin never waits for a writer nobody has.
 * `input` implies a pipe in both.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createSandbox } from '../../../src/index.js'

const dir = mkdtempSync(join(tmpdir(), 'cordon-stdin-'))
const sb = createSandbox({ cwd: dir, mode: 'landlock', compat: 'best-effort' })
afterAll(() => {
  sb.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Fails the run (timedOut) instead of the test file when a command waits on stdin. */
const GUARD = { timeout: 10_000 }

describe('spawn(): stdin is a pipe by default', () => {
  it('child.stdin is writable and reaches the command', async () => {
    const child = sb.spawn('cat', [], GUARD)
    expect(child.stdin).not.toBeNull()
    child.stdin!.write('hello ')
    child.stdin!.end('world\n')
    expect(await child).toMatchObject({ stdout: 'hello world\n', exitCode: 0, timedOut: false })
  })

  it("stdin: 'ignore' gives no stream and end of file", async () => {
    const child = sb.spawn('cat', [], { ...GUARD, stdin: 'ignore' })
    expect(child.stdin).toBeNull()
    expect(await child).toMatchObject({ stdout: '', exitCode: 0, timedOut: false })
  })

  it('input is written and the pipe closed', async () => {
    expect(await sb.spawn('cat', [], { ...GUARD, input: 'given\n' })).toMatchObject({ stdout: 'given\n', timedOut: false })
  })
})

describe('run(): stdin never waits for a writer', () => {
  it('the default: a command that reads stdin sees end of file', async () => {
    expect(await sb.run(['cat'], GUARD)).toMatchObject({ stdout: '', exitCode: 0, timedOut: false })
  })

  it("stdin: 'pipe' without input: closed at once, no hang", async () => {
    expect(await sb.run(['sh', '-c', 'read line; echo "read=$? [$line]"'], { ...GUARD, stdin: 'pipe' })).toMatchObject({ stdout: 'read=1 []\n', timedOut: false })
  })

  it('input implies a pipe, whatever stdin says', async () => {
    expect(await sb.run(['cat'], { ...GUARD, stdin: 'ignore', input: new TextEncoder().encode('bytes\n') })).toMatchObject({ stdout: 'bytes\n', timedOut: false })
  })
})
