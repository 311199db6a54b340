/**
 * What a caller does to the streams `spawn()` hands it never reaches the
 * result: setEncoding, pause, destroy, reading them itself, removing every
 * listener — the result promise settles with the whole output and the
 * caller's process lives on (issue 11, bug 1: setEncoding made the output
 * collector's `Buffer.concat` throw in a stream 'end' handler, an uncaught
 * exception nothing could catch).
 *
 * Each case runs in its own Node process against dist/ (rebuilt by the
 * global setup): an uncaught exception ends that process, not the test
 * worker, and the test sees it as a non-zero exit.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { text } from 'node:stream/consumers'
import { afterAll, describe, expect, it } from 'vitest'
import { createSandbox } from '../../../src/index.js'
import { distIndex } from '../../helpers/paths.js'

const dir = mkdtempSync(join(tmpdir(), 'cordon-streams-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** 3000 lines on stdout and one on stderr: more than one read of each pipe. */
const SCRIPT = 'i=0; while [ $i -lt 3000 ]; do echo "line $i"; i=$((i+1)); done; echo oops >&2'

/**
 * Run `body` (statements using `child`, the SandboxProcess) in a fresh Node
 * process; it prints the result's sizes as JSON, or `REJECTED` with the error.
 */
function inChild(body: string) {
  const source = `
    import { createSandbox } from ${JSON.stringify(distIndex)}
    const sb = createSandbox({ cwd: ${JSON.stringify(dir)}, mode: 'landlock', compat: 'best-effort' })
    const child = sb.spawn('sh', ['-c', ${JSON.stringify(SCRIPT)}])
    ${body}
    try {
      const r = await child
      console.log(JSON.stringify({ lines: r.stdout.split('\\n').length - 1, stderr: r.stderr, exitCode: r.exitCode }))
    } catch (e) {
      console.log('REJECTED', e && e.message)
    }
    sb.close()
  `
  return spawnSync(process.execPath, ['--input-type=module', '-e', source], { encoding: 'utf8', timeout: 20_000 })
}

describe('spawn(): the caller owns the streams it is handed', () => {
  it.each([
    ['setEncoding on both', `child.stdout.setEncoding('utf8'); child.stderr.setEncoding('utf8')`],
    ['setEncoding, then reading them', `child.stderr.setEncoding('latin1'); child.stdout.setEncoding('utf8'); child.stdout.on('data', (s) => { if (typeof s !== 'string') throw new Error('not decoded') })`],
    ['pause, never resumed', `child.stdout.pause(); child.stderr.pause()`],
    ['destroy right away', `child.stdout.destroy(); child.stderr.destroy()`],
    ['destroy after the first chunk', `child.stdout.once('data', () => child.stdout.destroy())`],
    ['read them itself', `let n = 0; child.stdout.on('data', (d) => (n += d.length)); child.stderr.resume()`],
    ['read() in paused mode', `child.stdout.on('readable', () => { while (child.stdout.read() !== null); })`],
    ['removeAllListeners', `child.stdout.on('data', () => {}); child.stdout.removeAllListeners(); child.stderr.removeAllListeners()`],
    ['async iteration, stopped early', `;(async () => { for await (const _ of child.stdout) break })()`],
    ['write to stdin after the command ended', `child.then(() => { child.stdin.write('late'); child.stdin.end() })`],
  ])('%s: the result settles with all output, the process exits normally', (_, body) => {
    const r = inChild(body)
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    expect(JSON.parse(r.stdout.trim())).toEqual({ lines: 3000, stderr: 'oops\n', exitCode: 0 })
  })
})

describe('spawn(): how the streams hold the command back, or not', () => {
  const sb = createSandbox({ cwd: dir, mode: 'landlock', compat: 'best-effort' })
  afterAll(() => sb.close())
  /** 1 MiB of 'x' on stdout. */
  const MIB = ['sh', '-c', 'head -c 1048576 /dev/zero | tr "\\0" x']

  it('a stream nobody reads never holds the command back: it keeps the first maxBuffer bytes, like the result, and ends there', async () => {
    const child = sb.spawn(MIB[0]!, MIB.slice(1), { maxBuffer: 64 * 1024, timeout: 20_000 })
    const r = await child
    expect(r).toMatchObject({ timedOut: false, exitCode: 0, outputTruncated: true })
    expect(r.stdout.length).toBe(64 * 1024)
    expect(await text(child.stdout!)).toBe(r.stdout)
  })

  it('pipe() into a slow destination gets backpressure and loses nothing past maxBuffer', async () => {
    const child = sb.spawn(MIB[0]!, MIB.slice(1), { maxBuffer: 64 * 1024, timeout: 20_000 })
    let received = 0
    const slow = new Writable({ highWaterMark: 1024, write: (chunk: Buffer, _e, done) => ((received += chunk.length), setTimeout(done, 1)) })
    const finished = new Promise((resolve) => slow.on('finish', resolve))
    child.stdout!.pipe(slow)
    const r = await child
    await finished
    expect(r).toMatchObject({ timedOut: false, exitCode: 0, outputTruncated: true })
    expect(received).toBe(1024 * 1024)
  })

  it('a stream paused before the command ends still lets the result settle once it has', async () => {
    const child = sb.spawn('sh', ['-c', 'head -c 40000 /dev/zero'], { maxBuffer: 1000, timeout: 20_000 })
    child.stdout!.pause()
    const r = await child
    expect(r).toMatchObject({ timedOut: false, exitCode: 0 })
    expect(child.stdout!.readableLength).toBe(40000) // the rest of the pipe was read after the end, past the mark
  })
})
