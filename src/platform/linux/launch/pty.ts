/**
 * A pseudo-terminal for a sandboxed command (native/linux/pty.c): the
 * command gets the slave as its terminal — in a session of its own, as its
 * controlling terminal (the plan's `ctty`) —, cordon reads and writes the
 * master. A run whose stdio is the caller's terminal relays between the two
 * (caller-terminal.ts); anything that wants to drive a command through a
 * terminal of its own can use this directly:
 *
 *   const pty = Pty.open()                 // or Pty.open(fd): modes and size of that terminal
 *   pty.setSize(rows, cols)
 *   …give pty.slave to the child, then pty.releaseSlave()
 *   pty.read((chunk) => …)                 // until every slave end is closed
 *   pty.write('ls\r')                      // queued, never blocks
 *   await pty.ended                        // all output delivered (or close() called)
 *   pty.close()                            // once the command has ended: hangs up the terminal
 *
 * Why the end is reliable: the master reads EIO once no process holds the
 * slave any more, after everything written to it has been read. The
 * launcher's supervisor kills whatever the command left behind before it
 * exits, and cordon holds no slave end once the child has its own, so the
 * end comes when the run ends and no output is lost.
 */
import type { NativeFdReader } from '../../../native/binding.js'
import { loadNative } from '../../../native/load.js'
import { fromNativeError } from '../../../native/native-error.js'
import { FdWriter } from './fd-writer.js'
import { closeQuietly } from './zygote.js'

export class Pty {
  /** Resolves once the output has ended (every slave end closed) or close() was called. */
  readonly ended: Promise<void>
  private finish!: () => void
  private reader: NativeFdReader | undefined
  private readonly input: FdWriter
  /** Writes and output: until the output ends or close(). */
  private open = true
  /** The master itself: until close(). */
  private masterOpen = true

  private constructor(
    /** The master: cordon's end. Owned by this object, closed at the end. */
    readonly master: number,
    private slaveFd: number | undefined,
  ) {
    this.ended = new Promise((resolve) => (this.finish = resolve))
    this.input = new FdWriter(master)
  }

  /** A new PTY; with `like`, the slave starts with that terminal's line settings and window size. */
  static open(like?: number): Pty {
    try {
      const [master, slave] = loadNative().binding.openPty(like ?? -1)
      return new Pty(master, slave)
    } catch (e) {
      throw fromNativeError(e, { step: 'terminal', syscall: 'posix_openpt', detail: "could not make the command's terminal" })
    }
  }

  /** The command's end, to hand to the child. */
  get slave(): number {
    if (this.slaveFd === undefined) throw new Error('the slave end was already released')
    return this.slaveFd
  }

  /** Close cordon's copy of the slave once the child holds its own: the end of output depends on it. */
  releaseSlave(): void {
    closeQuietly(this.slaveFd)
    this.slaveFd = undefined
  }

  /**
   * Deliver the command's output; `ended` resolves after the last chunk.
   * Call once. The output ends at EIO: no slave end is open any more.
   *
   * The reader reads a copy of the master and closes only that copy at the
   * end; the master stays open until close(). Why: closing the master hangs
   * up the terminal, and the kernel sends SIGHUP to the session's leader —
   * the command. A command can close its last terminal descriptor and still
   * be running (GNU cat closes 0, 1 and 2 before it exits): a hang-up then
   * killed it, and the run ended "killed by SIGHUP" instead of exit 0. The
   * owner closes the master once the command's end is known (launch.ts).
   */
  read(onData: (chunk: Buffer) => void): void {
    if (!this.open || this.reader) return
    const { binding } = loadNative()
    this.reader = new binding.FdReader(binding.dup(this.master), (chunk) => {
      if (chunk) onData(chunk)
      else this.end()
    })
  }

  /** Type `data` into the command's terminal; false when it was dropped (ended, or the input is backed up past 1 MiB). */
  write(data: Uint8Array | string): boolean {
    return this.open && this.input.write(data)
  }

  /** Set the command's window size; the kernel signals SIGWINCH to its foreground group. */
  setSize(rows: number, cols: number): void {
    if (!this.open) return
    try {
      loadNative().binding.setTerminalSize(this.master, rows, cols)
    } catch {
      /* the command's side is gone: nothing to resize */
    }
  }

  /** Stop now: unread output is dropped, and the command's terminal is hung up (the master closed). */
  close(): void {
    this.reader?.close()
    if (this.masterOpen) closeQuietly(this.master)
    this.masterOpen = false
    this.end()
  }

  /** The output has ended (or close()): no more writes; the master itself stays open until close(). */
  private end(): void {
    if (!this.open) return
    this.open = false
    this.input.close()
    this.releaseSlave()
    this.finish()
  }
}
