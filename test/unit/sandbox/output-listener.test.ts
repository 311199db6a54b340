/**
 * `onOutput`: each chunk of a run's piped stdout and stderr handed to a
 * listener as cordon reads it, with no stream object made for them (the
 * orchestrator's shell runtime and unified exec take their output this
 * way). What the listener is given, what spawn() hands out with one, and
 * what a throwing listener does to the run (nothing) and to the caller's
 * process (an uncaught exception, as from a stream's 'data' handler).
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createSandbox, PolicyError } from '../../../src/index.js'
import { distIndex } from '../../helpers/paths.js'

const dir = mkdtempSync(join(tmpdir(), 'cordon-onoutput-'))
const sb = createSandbox({ cwd: dir, mode: 'landlock', compat: 'best-effort' })
afterAll(() => {
  sb.close()
  rmSync(dir, { recursive: true, force: true })
})

type Chunk = [stream: 'stdout' | 'stderr', text: string]

function recorder() {
  const chunks: Chunk[] = []
  return { chunks, onOutput: (stream: 'stdout' | 'stderr', chunk: Buffer) => void chunks.push([stream, chunk.toString('utf8')]) }
}

const joined = (chunks: Chunk[], stream: 'stdout' | 'stderr') =>
  chunks
    .filter(([s]) => s === stream)
    .map(([, t]) => t)
    .join('')

// Spaced out so that each write is read before the next one is made.
const INTERLEAVED = ['sh', '-c', 'echo out1; sleep 0.2; echo err1 >&2; sleep 0.2; echo out2; sleep 0.2; echo err2 >&2']

describe('onOutput', () => {
  it('run(): each chunk, named by its stream, in the order read; the result has the same output', async () => {
    const rec = recorder()
    const r = await sb.run(INTERLEAVED, { onOutput: rec.onOutput })
    expect(rec.chunks).toEqual([
      ['stdout', 'out1\n'],
      ['stderr', 'err1\n'],
      ['stdout', 'out2\n'],
      ['stderr', 'err2\n'],
    ])
    expect(r).toMatchObject({ stdout: 'out1\nout2\n', stderr: 'err1\nerr2\n', exitCode: 0 })
  })

  it('gets whole chunks past maxBuffer while the result keeps its bound', async () => {
    const rec = recorder()
    const r = await sb.run(['sh', '-c', 'printf 123456'], { maxBuffer: 4, onOutput: rec.onOutput })
    expect(joined(rec.chunks, 'stdout')).toBe('123456')
    expect(r).toMatchObject({ stdout: '1234', outputTruncated: true })
  })

  it('spawn(): no stdout and stderr streams, a piped stdin still is one, and every chunk came before the result', async () => {
    const rec = recorder()
    const child = sb.spawn('sh', ['-c', 'cat; echo done >&2'], { stdin: 'pipe', onOutput: rec.onOutput })
    expect(child.stdout).toBeNull()
    expect(child.stderr).toBeNull()
    expect(child.stdin).not.toBeNull()
    child.stdin!.end('hello\n')
    const r = await child
    expect(joined(rec.chunks, 'stdout')).toBe('hello\n')
    expect(joined(rec.chunks, 'stderr')).toBe('done\n')
    expect(r).toMatchObject({ stdout: 'hello\n', stderr: 'done\n' })
  })

  it('without it, spawn() still hands out both streams', () => {
    const child = sb.spawn('true', [])
    expect(child.stdout).not.toBeNull()
    expect(child.stderr).not.toBeNull()
    return child
  })

  it('a stream that is not piped gives no chunks', async () => {
    const rec = recorder()
    await sb.run(['sh', '-c', 'echo out; echo err >&2'], { stdout: 'ignore', onOutput: rec.onOutput })
    expect(rec.chunks).toEqual([['stderr', 'err\n']])
  })

  it("a tty run's terminal output reaches it as stdout", async () => {
    const rec = recorder()
    const r = await sb.spawn('sh', ['-c', 'echo on-the-terminal'], { tty: { rows: 24, cols: 80 }, onOutput: rec.onOutput })
    expect(joined(rec.chunks, 'stdout')).toContain('on-the-terminal\r\n')
    expect(rec.chunks.every(([s]) => s === 'stdout')).toBe(true)
    expect(r.stdout).toContain('on-the-terminal')
  })

  it('a spawn() canceled before it started hands out no output streams either', async () => {
    const ac = new AbortController()
    ac.abort()
    const child = sb.spawn('echo', ['never'], { signal: ac.signal, onOutput: () => {} })
    expect(child.stdout).toBeNull()
    expect(child.stderr).toBeNull()
    expect(await child).toMatchObject({ isCanceled: true, stdout: '' })
  })

  it('is refused when it is not a function: a typed error, nothing runs', () => {
    expect(() => sb.spawn('echo', ['x'], { onOutput: 'stdout' as never })).toThrow(PolicyError)
  })

  it('a listener that throws is not called again, the run completes, and the error is an uncaught exception outside the read', () => {
    // In a Node process of its own: an uncaught exception would end the test worker.
    const source = `
      import { createSandbox } from ${JSON.stringify(distIndex)}
      const sb = createSandbox({ cwd: ${JSON.stringify(dir)}, mode: 'landlock', compat: 'best-effort' })
      const uncaught = []
      process.on('uncaughtException', (e) => uncaught.push(e.message))
      let calls = 0
      const r = await sb.run(['sh', '-c', 'echo one; sleep 0.2; echo two; sleep 0.2; echo three'], {
        onOutput: () => { calls++; throw new Error('listener bug') },
      })
      console.log(JSON.stringify({ calls, uncaught, stdout: r.stdout, exitCode: r.exitCode }))
      sb.close()
    `
    const p = spawnSync(process.execPath, ['--input-type=module', '-e', source], { encoding: 'utf8', timeout: 20_000 })
    expect(p.stderr).toBe('')
    expect(JSON.parse(p.stdout)).toEqual({ calls: 1, uncaught: ['listener bug'], stdout: 'one\ntwo\nthree\n', exitCode: 0 })
  })
})
