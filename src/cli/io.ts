/** Where CLI commands write: injectable so commands are testable in-process. */
import { writeSync } from 'node:fs'

export interface Io {
  stdout(s: string): void
  stderr(s: string): void
}

/** Descriptors whose writes go through Node's stream from now on (see writeFd). */
const viaStream = new Set<1 | 2>()

function streamOf(fd: 1 | 2): NodeJS.WriteStream {
  const stream = fd === 1 ? process.stdout : process.stderr
  if (!viaStream.has(fd)) {
    viaStream.add(fd)
    // A reader that is gone is not an error of cordon's (as for writeSync below).
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') throw e
    })
  }
  return stream
}

/**
 * Written straight to the descriptor: `process.stdout`/`process.stderr` are
 * streams built on first use, and for a pipe — an agent capturing a run's
 * output — that loads node:net (~8 ms of a one-shot `cordon run` that says
 * one line). A descriptor that is non-blocking and full (EAGAIN) gets the
 * rest through Node's stream, which waits for it — and so does every later
 * write to it, or they would overtake what the stream still holds. A reader
 * that is gone (EPIPE) gets nothing.
 */
function writeFd(fd: 1 | 2, s: string): void {
  if (viaStream.has(fd)) return void streamOf(fd).write(s)
  const buf = Buffer.from(s)
  let off = 0
  try {
    while (off < buf.length) off += writeSync(fd, buf, off)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'EPIPE') return
    if (code !== 'EAGAIN') throw e
    streamOf(fd).write(buf.subarray(off))
  }
}

export const processIo: Io = {
  stdout: (s) => writeFd(1, s),
  stderr: (s) => writeFd(2, s),
}
