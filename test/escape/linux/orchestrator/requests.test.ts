/**
 * Orchestrator requests with the real sandbox: output streams while the
 * command runs (the command below only ends because the caller saw its
 * first line), per attempt; maxBuffer keeps both ends of a long output and
 * says what was cut; a command's own timeout is `timed_out`, not
 * `completed`. Runs in both modes.
 */
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { createOrchestrator, type OutputChunk } from '../../../../src/orchestrator/index.js'
import { describeModes, removeTempDirs, tempDir } from './env.js'

afterAll(removeTempDirs)

describeModes((mode) => {
  it('onOutput sees output while the command runs, stream by stream', async () => {
    const ws = tempDir('req-stream')
    const orch = createOrchestrator({ sandbox: { cwd: ws, mode }, onApproval: () => 'approved' })
    const seen: OutputChunk[] = []
    // The command waits for a file that the listener creates when it sees the first line.
    const script = 'echo one; while [ ! -e go ]; do sleep 0.02; done; echo two >&2; echo three'
    const o = await orch.exec({
      command: ['sh', '-c', script],
      timeout: 20_000,
      onOutput: (c) => {
        seen.push(c)
        if (c.chunk.includes('one')) writeFileSync(join(ws, 'go'), '')
      },
    })
    expect(o.status).toBe('completed')
    expect(existsSync(join(ws, 'go'))).toBe(true)
    const text = (s: string) => seen.filter((c) => c.stream === s).map((c) => c.chunk).join('')
    expect(text('stdout')).toBe('one\nthree\n')
    expect(text('stderr')).toBe('two\n')
    expect(seen.every((c) => c.attempt === 1)).toBe(true)
    expect(o.result).toMatchObject({ stdout: 'one\nthree\n', stderr: 'two\n', outputTruncated: false })
  })

  it('each attempt streams under its own number (a denied write, then the wider retry)', async () => {
    const ws = tempDir('req-esc-ws')
    const out = tempDir('req-esc-out')
    const orch = createOrchestrator({ sandbox: { cwd: ws, mode }, onApproval: () => 'approved' })
    const seen: OutputChunk[] = []
    const o = await orch.exec({ command: ['touch', join(out, 'made')], timeout: 20_000, onOutput: (c) => void seen.push(c) })
    expect(o.attempts).toHaveLength(2)
    expect(existsSync(join(out, 'made'))).toBe(true)
    expect(seen.filter((c) => c.attempt === 1 && c.stream === 'stderr').map((c) => c.chunk).join('')).toMatch(/Permission denied|Read-only file system/)
    expect(seen.some((c) => c.attempt === 2)).toBe(false) // the retry printed nothing
  })

  it('maxBuffer keeps both ends of a long output, says what was cut, and streams all of it', async () => {
    const ws = tempDir('req-big')
    const orch = createOrchestrator({ sandbox: { cwd: ws, mode }, onApproval: () => 'approved' })
    let streamed = 0
    const o = await orch.exec({
      command: ['sh', '-c', 'printf START; head -c 1000000 /dev/zero | tr "\\000" x; printf END'],
      timeout: 20_000,
      maxBuffer: 1000,
      onOutput: (c) => void (streamed += c.raw.length),
    })
    expect(o.status).toBe('completed')
    expect(streamed).toBe(1_000_008)
    expect(o.result?.truncation).toEqual({ stdout: { totalBytes: 1_000_008, keptBytes: 1000, droppedBytes: 999_008, where: 'middle', offset: 500 } })
    expect(o.result?.outputTruncated).toBe(true)
    expect(o.result?.stdout).toMatch(/^STARTx+\n\[cordon: 999008 of 1000008 bytes of stdout cut here \(maxBuffer 1000, keep head-tail\)\]\nx+END$/)
  })

  it("a command that runs past its timeout is timed_out (the approver's timeout is approval_timed_out)", async () => {
    const ws = tempDir('req-timeout')
    const orch = createOrchestrator({ sandbox: { cwd: ws, mode } })
    const o = await orch.exec({ command: ['sleep', '30'], timeout: 300 })
    expect(o.status).toBe('timed_out')
    expect(o.result).toMatchObject({ timedOut: true })
    expect(o.result!.durationMs).toBeLessThan(10_000)
  })
})
