/**
 * A run with a terminal of its own (`tty`): the command's stdin, stdout and
 * stderr are the slave of a new PTY (pty.ts), which the launcher makes its
 * controlling terminal in a session of its own (the plan's `ctty`, set
 * before Landlock and seccomp) — the same launch path, descriptors and
 * confinement as any run, only the three standard descriptors differ.
 *
 * cordon reads the master: every chunk goes to the result (at most
 * `maxBuffer` bytes, as for a pipe) and to the caller's listeners. There is
 * no backpressure (the terminal's reader is never paused), so a listener that
 * cannot keep up buffers itself (unified exec keeps a head and a tail).
 */
import type { CommandTerminal, TerminalSize } from '../../backend.js'
import { PolicyError } from '../../../errors.js'
import { Collector, type CollectedOutput } from './output.js'
import { Pty } from './pty.js'

/** ^D: the default VEOF character (termios(3)); the kernel's default modes are what a new PTY starts with. */
const VEOF = '\x04'

export interface TerminalRun {
  pty: Pty
  terminal: CommandTerminal
  /** Resolves once the terminal's output has ended (every slave end closed, or close()). */
  done: Promise<CollectedOutput>
}

/** Window sizes a terminal can carry (struct winsize: unsigned short). */
export function checkSize(size: TerminalSize): void {
  for (const [name, v] of Object.entries(size)) {
    if (!Number.isInteger(v) || v < 1 || v > 0xffff) throw new PolicyError(`terminal ${name} must be an integer in 1..65535 (got ${String(v)})`, { where: 'tty' })
  }
}

/** Open the command's PTY at `size` and start collecting what it prints. */
export function openCommandTerminal(size: TerminalSize, max: number): TerminalRun {
  checkSize(size)
  const pty = Pty.open()
  pty.setSize(size.rows, size.cols)
  const listeners = new Set<(chunk: Buffer) => void>()
  const kept = new Collector(max, undefined)
  pty.read((chunk) => {
    kept.take(chunk)
    for (const l of listeners) {
      try {
        l(chunk)
      } catch {
        /* a listener's failure is its own: the output goes on for the others and the result */
      }
    }
  })
  const terminal: CommandTerminal = {
    write: (data) => pty.write(data),
    resize: (s) => (checkSize(s), pty.setSize(s.rows, s.cols)),
    eof: () => void pty.write(VEOF),
    onData: (l) => (listeners.add(l), () => void listeners.delete(l)),
  }
  const done = pty.ended.then((): CollectedOutput => (listeners.clear(), { stdout: kept.bytes(), stderr: Buffer.alloc(0), truncated: kept.truncated }))
  return { pty, terminal, done }
}
