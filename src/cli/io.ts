/** Where CLI commands write: injectable so commands are testable in-process. */
import { writeSync } from 'node:fs'

export interface Io {
  stdout(s: string): void
  stderr(s: string): void
}

/**
 * Written straight to the descriptor: `process.stdout`/`process.stderr` are
 * streams built on first use, and for a pipe — an agent capturing a run's
 * output — that loads node:net (~8 ms of a one-shot `cordon run` that says
 * one line). A descriptor that is non-blocking and full (EAGAIN) gets the
 * rest through Node's stream, which waits for it; a reader that is gone
 * (EPIPE) gets nothing.
 */
function writeFd(fd: 1 | 2, s: string): void {
  const buf = Buffer.from(s)
  let off = 0
  try {
    while (off < buf.length) off += writeSync(fd, buf, off)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'EPIPE') return
    if (code !== 'EAGAIN') throw e
    ;(fd === 1 ? process.stdout : process.stderr).write(buf.subarray(off))
  }
}

export const processIo: Io = {
  stdout: (s) => writeFd(1, s),
  stderr: (s) => writeFd(2, s),
}
