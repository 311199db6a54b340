/**
 * Output of orchestrator requests: streamed per attempt as it arrives
 * (onOutput), kept within maxBuffer per stream (head, tail or both), and
 * what was cut is said — in the text and as data. Scripted sandbox here;
 * the real one in test/escape/linux/orchestrator/requests.test.ts.
 */
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { removeTempDirs, tempDir } from '../../helpers/temp.js'
import { createOrchestrator, type OutputChunk } from '../../../src/orchestrator/index.js'
import { OutputCollector } from '../../../src/orchestrator/output.js'
import { fakeSandboxes, type Script } from './fake-sandbox.js'

afterAll(removeTempDirs)
const ws = tempDir('orch-out-ws-')
const outside = tempDir('orch-out-x-')

function collect(keep: 'head' | 'tail' | 'head-tail', max: number, ...parts: (string | Buffer)[]) {
  const c = new OutputCollector('stdout', max, keep)
  for (const p of parts) c.push(Buffer.from(p))
  return c.finish()
}

describe('OutputCollector', () => {
  it('under the bound: the output as it was, nothing said', () => {
    expect(collect('head-tail', 10, 'abc', 'def', 'ghij')).toEqual({ text: 'abcdefghij' })
  })

  it('head-tail keeps both ends and says how much was cut, and where', () => {
    const r = collect('head-tail', 6, 'START-', 'middle-'.repeat(10), '-END')
    expect(r.cut).toEqual({ totalBytes: 80, keptBytes: 6, droppedBytes: 74, where: 'middle', offset: 3 })
    expect(r.text).toBe('STA\n[cordon: 74 of 80 bytes of stdout cut here (maxBuffer 6, keep head-tail)]\nEND')
  })

  it('head keeps the start (cut at the end), tail the end (cut at the start)', () => {
    expect(collect('head', 4, 'abcdefgh')).toEqual({
      text: 'abcd\n[cordon: 4 of 8 bytes of stdout cut here (maxBuffer 4, keep head)]',
      cut: { totalBytes: 8, keptBytes: 4, droppedBytes: 4, where: 'end', offset: 4 },
    })
    expect(collect('tail', 3, 'ab', 'cd', 'efgh')).toMatchObject({ text: expect.stringMatching(/cut here .*\nfgh$/), cut: { droppedBytes: 5, where: 'start', offset: 0 } })
  })

  it('never shows half a character at a cut', () => {
    // 'é' is two bytes: the 2-byte head ends inside the first é, the 2-byte tail starts inside the last.
    const r = collect('head-tail', 4, 'aé', 'x'.repeat(20), 'éb')
    expect(r.text).toBe('a\n[cordon: 22 of 26 bytes of stdout cut here (maxBuffer 4, keep head-tail)]\nb')
    expect(r.cut).toMatchObject({ keptBytes: 4, droppedBytes: 22 })
  })
})

const touch: Script = ({ argv, options }) => {
  const target = argv[argv.length - 1] as string
  const denied = argv[0] === 'touch' && !(options.write ?? []).some((w) => target.startsWith(w))
  return denied
    ? { exitCode: 1, chunks: [{ stream: 'stdout', data: 'trying\n' }, { stream: 'stderr', data: `touch: cannot touch '${target}': Permission denied\n` }] }
    : { chunks: [{ stream: 'stdout', data: 'tr' }, { stream: 'stdout', data: Buffer.from([0xc3]) }, { stream: 'stdout', data: Buffer.from([0xa9, 0x0a]) }] }
}

describe('exec({ onOutput })', () => {
  it('streams every chunk with its attempt and stream, characters whole, and the result holds the same text', async () => {
    const fake = fakeSandboxes(touch, ws)
    const seen: OutputChunk[] = []
    const orch = createOrchestrator({ sandbox: { cwd: ws }, createSandbox: fake.create, onApproval: () => 'approved' })
    const o = await orch.exec({ command: ['touch', join(outside, 'f')], onOutput: (c) => void seen.push(c) })
    expect(o.attempts).toHaveLength(2)
    expect(seen.map((c) => [c.attempt, c.stream, c.chunk])).toEqual([
      [1, 'stdout', 'trying\n'],
      [1, 'stderr', `touch: cannot touch '${join(outside, 'f')}': Permission denied\n`],
      [2, 'stdout', 'tr'],
      [2, 'stdout', 'é\n'], // the two bytes of é arrived in two reads
    ])
    expect(seen[3]!.raw).toEqual(Buffer.from([0xc3, 0xa9, 0x0a])) // the bytes since the previous chunk
    expect(o.result?.stdout).toBe('tré\n')
    expect(o.attempts[0]!.result?.stdout).toBe('trying\n')
  })

  it('a listener that throws is noted and not called again; the command still completes', async () => {
    const fake = fakeSandboxes(() => ({ chunks: [{ stream: 'stdout', data: 'a' }, { stream: 'stdout', data: 'b' }] }), ws)
    let calls = 0
    const orch = createOrchestrator({ sandbox: { cwd: ws }, createSandbox: fake.create })
    const o = await orch.exec({ command: ['ls'], onOutput: () => (calls++, Promise.reject(new Error('listener broke'))) })
    await new Promise((r) => setImmediate(r))
    expect(o.status).toBe('completed')
    expect(o.result?.stdout).toBe('ab')
    expect(calls).toBe(1)
    expect(o.notes.join(' ')).toMatch(/onOutput failed .*listener broke/)
  })

  it('maxBuffer bounds the kept output (and the sandbox copy); stdin is given explicitly', async () => {
    const big = 'x'.repeat(5000)
    const fake = fakeSandboxes(() => ({ chunks: [{ stream: 'stdout', data: `BEGIN${big}` }, { stream: 'stdout', data: `${big}END` }, { stream: 'stderr', data: 'short' }] }), ws)
    const orch = createOrchestrator({ sandbox: { cwd: ws }, createSandbox: fake.create })
    const o = await orch.exec({ command: ['ls'], maxBuffer: 100 })
    expect(fake.runs[0]!.runOptions).toMatchObject({ maxBuffer: 100, stdin: 'ignore' })
    expect(o.result?.stdout).toMatch(/^BEGIN.*\n\[cordon: 9908 of 10008 bytes of stdout cut here \(maxBuffer 100, keep head-tail\)\]\n.*END$/s)
    expect(o.result?.stderr).toBe('short')
    expect(o.result?.outputTruncated).toBe(true)
    expect(o.result?.truncation).toEqual({ stdout: { totalBytes: 10008, keptBytes: 100, droppedBytes: 9908, where: 'middle', offset: 50 } })
    const tail = await orch.exec({ command: ['ls'], maxBuffer: 100, keep: 'tail' })
    expect(tail.result?.truncation?.stdout).toMatchObject({ where: 'start', keptBytes: 100 })
    expect(tail.result?.stdout.endsWith('END')).toBe(true)
  })

  it('input is passed on a stdin pipe', async () => {
    const fake = fakeSandboxes(() => ({}), ws)
    const orch = createOrchestrator({ sandbox: { cwd: ws }, createSandbox: fake.create })
    await orch.exec({ command: ['ls'], input: 'data' })
    expect(fake.runs[0]!.runOptions).toMatchObject({ input: 'data', stdin: 'pipe' })
  })
})
