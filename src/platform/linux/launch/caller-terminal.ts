/**
 * The caller's terminal during a run that inherits it (`cordon run` in a
 * shell, `stdio: 'inherit'`): the command never gets it. It gets a PTY of
 * its own (pty.ts) in place of each inherited descriptor that is a
 * terminal, and for the length of the run cordon relays, as script(1) and
 * `sudo --use-pty` do:
 *
 *  - output: the PTY's output to the caller's terminal (stdout's, else
 *    stderr's, else stdin's), until every end of the PTY is closed;
 *  - input: the caller's stdin, in raw mode, to the PTY — ^C, ^Z and ^\
 *    are bytes the PTY's line discipline turns into signals for the
 *    command's foreground group, not signals for cordon;
 *  - window size: SIGWINCH → the caller's size onto the PTY;
 *  - the caller's mode is restored when the run ends, on process exit, and
 *    on SIGINT/SIGTERM/SIGHUP (which then end the process as they would
 *    have; stdin is left paused, as readline leaves it).
 *
 * Input is relayed only when cordon is in the terminal's foreground group:
 * a background job that set modes or read would be stopped (SIGTTOU,
 * SIGTTIN), so a run started in the background gets a terminal whose input
 * never arrives. Several runs at once share the caller's stdin: it goes to
 * the newest.
 */
import type { ReadStream } from 'node:tty'
import { loadNative } from '../../../native/load.js'
import { FdWriter } from './fd-writer.js'
import type { Pty } from './pty.js'

type Kind = 'pipe' | 'ignore' | 'inherit'
type StdFd = 0 | 1 | 2

export interface CallerTerminal {
  /** The child's descriptors that get the PTY: the inherited ones that are terminals. */
  fds: StdFd[]
  /** Whether cordon may use the terminal now (not a background job). */
  foreground: boolean
  /** The caller's window size. */
  rows: number
  cols: number
}

/**
 * Which inherited descriptors are terminals; undefined when none is (pipes,
 * files, /dev/null: nothing changes, and a run without 'inherit' checks
 * nothing).
 */
export function callerTerminal(kinds: readonly [Kind, Kind, Kind]): CallerTerminal | undefined {
  let found: CallerTerminal | undefined
  for (const fd of [0, 1, 2] as const) {
    if (kinds[fd] !== 'inherit') continue
    const t = loadNative().binding.terminal(fd)
    if (!t) continue
    found ??= { fds: [], foreground: t.foreground, rows: t.rows, cols: t.cols }
    found.fds.push(fd)
  }
  return found
}

/** Where the command's output goes: the first of stdout, stderr, stdin that is a terminal it inherited. */
function outputSink(fds: readonly StdFd[]): { write(b: Buffer): void; close(): void } {
  if (fds.includes(1)) return { write: (b) => void process.stdout.write(b), close: () => {} }
  if (fds.includes(2)) return { write: (b) => void process.stderr.write(b), close: () => {} }
  return new FdWriter(0) // only stdin is a terminal: its echo still belongs on it
}

/** The runs reading the caller's stdin, newest last, and the mode to give back. */
const readers: Pty[] = []
let saved: { raw: boolean; flowing: boolean | null } | undefined
const HANDLED = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const

const onInput = (chunk: Buffer) => readers.at(-1)?.write(chunk)

/**
 * A signal that may end the process: the terminal goes back first. With no
 * other listener, the signal is raised again and ends the process as it
 * would have. Otherwise the others decide — the CLI ends the run;
 * signal-exit (which proper-lockfile uses) raises it again itself once it
 * is the last listener, which it now is —, and should the process still be
 * there afterwards, the runs still reading get the terminal back.
 */
function onSignal(signal: NodeJS.Signals): void {
  giveBack()
  if (process.listenerCount(signal) === 0) {
    process.kill(process.pid, signal) // the default action, now that nothing listens
    return
  }
  setImmediate(() => {
    if (readers.length > 0 && !saved) take()
  })
}

function take(): void {
  const stdin = process.stdin as ReadStream
  saved = { raw: stdin.isRaw === true, flowing: stdin.readableFlowing }
  try {
    stdin.setRawMode(true)
  } catch {
    /* not settable: relayed as is */
  }
  stdin.on('data', onInput).resume()
  // First in line: the terminal is back before any other listener acts (a
  // `once` listener of the caller's, signal-exit counting listeners).
  for (const s of HANDLED) process.prependListener(s, onSignal)
  process.on('exit', giveBack)
}

function giveBack(): void {
  if (!saved) return
  const stdin = process.stdin as ReadStream
  stdin.off('data', onInput)
  try {
    stdin.setRawMode(saved.raw)
  } catch {
    /* the terminal is gone */
  }
  if (saved.flowing !== true) stdin.pause()
  for (const s of HANDLED) process.off(s, onSignal)
  process.off('exit', giveBack)
  saved = undefined
}

function readInput(pty: Pty): () => void {
  if (readers.length === 0) take()
  readers.push(pty)
  return () => {
    const i = readers.indexOf(pty)
    if (i >= 0) readers.splice(i, 1)
    if (readers.length === 0) giveBack()
  }
}

/**
 * Relay between the caller's terminal and `pty` until the PTY's output
 * ends; resolves once all of it is written and the caller's terminal is
 * restored.
 */
export function relayTerminal(pty: Pty, t: CallerTerminal): Promise<void> {
  const like = t.fds[0]!
  const sink = outputSink(t.fds)
  const stopInput = t.fds.includes(0) && t.foreground ? readInput(pty) : () => {}
  const onResize = () => {
    const size = loadNative().binding.terminal(like)
    if (size) pty.setSize(size.rows, size.cols)
  }
  process.on('SIGWINCH', onResize)
  pty.read((chunk) => sink.write(chunk))
  return pty.ended.then(() => {
    process.off('SIGWINCH', onResize)
    stopInput()
    sink.close()
  })
}
