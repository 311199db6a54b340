/**
 * A run whose signal was already aborted when it was asked for: nothing is
 * created or spawned, and it resolves as every canceled run does — a
 * result with `isCanceled: true` — rather than rejecting. (Before issue 11
 * it rejected with AbortError here, while an abort a moment later resolved
 * with a flag: one contract now, execa's.)
 *
 * A `spawn()` caller still gets the streams it asked for, empty and ended
 * (the input side discards what is written), as node:child_process hands
 * out streams for a child that failed to start: code that reads or writes
 * them without a null check keeps working.
 */
import { createRequire } from 'node:module'
import type { Readable, Writable } from 'node:stream'
import type { CommandTerminal } from '../platform/backend.js'
import type { Enforcement } from '../platform/enforcement.js'
import type { ParsedRunOptions } from './options.js'
import type { SandboxResult } from './result.js'
import type { SandboxProcess } from './run.js'

interface Stdio {
  stdin: 'pipe' | 'ignore' | 'inherit'
  streams: boolean
}

function emptyStreams(opts: ParsedRunOptions, io: Stdio): { stdin: Writable | null; stdout: Readable | null; stderr: Readable | null } {
  if (!io.streams) return { stdin: null, stdout: null, stderr: null }
  const { Readable, Writable } = createRequire(import.meta.url)('node:stream') as typeof import('node:stream')
  // With `onOutput` a spawn() hands out no output streams (the listener would have had the output).
  const ended = (kind: 'pipe' | 'ignore' | 'inherit') => (kind === 'pipe' && !opts.onOutput ? Readable.from([]) : null)
  return {
    stdin: io.stdin === 'pipe' ? new Writable({ write: (_chunk, _encoding, done) => done() }) : null,
    stdout: ended(opts.stdout),
    stderr: ended(opts.stderr),
  }
}

/** The terminal of a `tty` run that never started: it takes nothing and prints nothing. */
function deadTerminal(): CommandTerminal {
  return { write: () => false, resize: () => {}, eof: () => {}, onData: () => () => {} }
}

export function canceledBeforeStart(argv: string[], planned: Enforcement, opts: ParsedRunOptions, io: Stdio): SandboxProcess<string | Buffer> {
  const enforcement: Enforcement = { ...planned, notes: [...planned.notes, 'canceled before the command started: nothing ran'] }
  const empty = opts.encoding === 'buffer' ? Buffer.alloc(0) : ''
  const result: SandboxResult<string | Buffer> = {
    command: argv,
    exitCode: null,
    signal: null,
    stdout: empty,
    stderr: empty,
    ...(opts.all ? { all: empty } : {}),
    outputTruncated: false,
    timedOut: false,
    isCanceled: true,
    durationMs: 0,
    enforcement,
  }
  return Object.assign(Promise.resolve(result), { pid: undefined, ...emptyStreams(opts, io), terminal: opts.tty ? deadTerminal() : null, kill: () => {}, enforcement: Promise.resolve(enforcement) })
}
