/**
 * Unified-exec output, bounded twice: a session keeps the head and the
 * tail of what it printed between two calls (the capture cap), and each
 * call hands the model at most its own cap — saying how much was left out.
 * And the yield windows, clamped.
 */
import { describe, expect, it } from 'vitest'
import { clamp, EXEC_YIELD, MODEL_OUTPUT, POLL_YIELD, WRITE_YIELD } from '../../../../src/tools/unified-exec/limits.js'
import { OutputBuffer } from '../../../../src/tools/unified-exec/output-buffer.js'
import { forModel } from '../../../../src/tools/unified-exec/truncate.js'

describe('OutputBuffer', () => {
  it('keeps everything under its cap, and starts a new period at each take', () => {
    const b = new OutputBuffer(100)
    b.push(Buffer.from('abc'))
    b.push(Buffer.from('def'))
    const t = b.take()
    expect(Buffer.concat([t.head, t.tail]).toString()).toBe('abcdef')
    expect(t.total).toBe(6)
    expect(b.take().total).toBe(0)
  })

  it('past its cap keeps the first and the last half and counts all', () => {
    const b = new OutputBuffer(10)
    b.push(Buffer.from('HEAD!'))
    for (let i = 0; i < 100; i++) b.push(Buffer.from('-middle-'))
    b.push(Buffer.from('TAIL!'))
    const t = b.take()
    expect(t.head.toString()).toBe('HEAD!')
    expect(t.tail.toString()).toBe('TAIL!')
    expect(t.total).toBe(810)
  })
})

describe('forModel', () => {
  const period = (head: string, tail: string, total: number) => ({ head: Buffer.from(head), tail: Buffer.from(tail), total })

  it('under the model cap: the output as it was, nothing omitted', () => {
    expect(forModel(period('hello ', 'world', 11), 1024)).toEqual({ text: 'hello world', omitted: 0, total: 11 })
  })

  it('over the model cap: head and tail, and a line that says how many bytes are missing', () => {
    const r = forModel(period('A'.repeat(600), 'Z'.repeat(600), 1200), 100)
    expect(r.omitted).toBe(1100)
    expect(r.text).toBe(`${'A'.repeat(50)}\n[cordon: 1100 of 1200 bytes of output omitted here]\n${'Z'.repeat(50)}`)
  })

  it('what the capture cap dropped is counted too, and its gap lies inside the marker', () => {
    // head "abc" and tail "xyz" kept, 1000 bytes between them dropped by the capture cap.
    const r = forModel(period('abc', 'xyz', 1006), 1024)
    expect(r).toEqual({ text: 'abc\n[cordon: 1000 of 1006 bytes of output omitted here]\nxyz', omitted: 1000, total: 1006 })
  })

  it('a short head leaves its share of the cap to the tail', () => {
    const r = forModel(period('ab', 'T'.repeat(500), 600), 100)
    expect(r.text.endsWith('T'.repeat(98))).toBe(true)
    expect(r.omitted).toBe(500)
  })

  it('never cuts a character in half at either side of the marker', () => {
    const r = forModel(period('é'.repeat(100), 'ü'.repeat(100), 1000), 51)
    expect(r.text).not.toContain('\uFFFD')
  })
})

describe('clamp', () => {
  it('defaults: exec_command 250 ms, write_stdin 250 ms, an empty poll 5 s, 15 KiB for the model', () => {
    expect([clamp(undefined, EXEC_YIELD), clamp(undefined, WRITE_YIELD), clamp(undefined, POLL_YIELD), clamp(undefined, MODEL_OUTPUT)]).toEqual([250, 250, 5000, 15360])
  })

  it('brings every value into its range: 0..30 s for yields, at most 5 min for a poll', () => {
    expect(clamp(-5, EXEC_YIELD)).toBe(0)
    expect(clamp(3_600_000, EXEC_YIELD)).toBe(30_000)
    expect(clamp(3_600_000, POLL_YIELD)).toBe(300_000)
    expect(clamp(10, MODEL_OUTPUT)).toBe(1024)
    expect(clamp(Number.NaN, WRITE_YIELD)).toBe(250)
    expect(clamp(Number.POSITIVE_INFINITY, WRITE_YIELD)).toBe(250)
    expect(clamp(1234.6, EXEC_YIELD)).toBe(1235)
  })
})
