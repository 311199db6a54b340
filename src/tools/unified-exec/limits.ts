/**
 * The bounds of unified exec, in one place. A model picks its own yield
 * windows and output sizes; each is clamped here, so a call can neither
 * block a turn for an hour nor fill the model's context (or cordon's
 * memory) with one command's output. The clamp is reported, not silent:
 * the result says what was used.
 */
import { MAX_TIMEOUT_MS } from '../../sandbox/options.js'

/** How long exec_command waits for the command before handing back a session (ms). */
export const EXEC_YIELD = { default: 250, min: 0, max: 30_000 } as const
/** How long write_stdin with input waits for the reply (ms). */
export const WRITE_YIELD = { default: 250, min: 0, max: 30_000 } as const
/** How long write_stdin with no input (a poll) may wait for more output (ms): up to 5 minutes. */
export const POLL_YIELD = { default: 5_000, min: 0, max: 300_000 } as const
/**
 * Output handed to the model per call (bytes): the head and the tail of
 * what the command printed since the last call, the middle dropped and
 * counted (truncate.ts). The default leaves room for the reply's header
 * lines within the dispatcher's own bound (16 KiB, dispatch/truncate.ts),
 * so the dispatcher does not cut the reply a second time.
 */
export const MODEL_OUTPUT = { default: 15 * 1024, min: 1024, max: 1024 * 1024 } as const
/**
 * What a session keeps between two calls (bytes): the first and the last
 * half of this of what was printed meanwhile. A command that prints a
 * gigabyte while nobody polls costs this much memory, not a gigabyte.
 */
export const CAPTURE_BYTES = 1024 * 1024
/**
 * The longest timeout_ms (ms), about 24.8 days: the longest a timer waits
 * (sandbox/options.ts). A longer one is clamped to it — passed on, it would
 * kill the command after 1 ms.
 */
export const MAX_TIMEOUT = MAX_TIMEOUT_MS
/**
 * Sessions one store holds, live or exited-but-unread; also the most
 * exec_command calls of the store that may be starting or running at once
 * (stored ones counted), so one response cannot start hundreds of sandboxes.
 */
export const MAX_SESSIONS = 64
/** The most recently used sessions, never pruned to make room. */
export const PROTECTED_RECENT = 8
/** A new session's terminal when the call names no size. */
export const DEFAULT_TERMINAL = { rows: 24, cols: 80 } as const

export interface Range {
  readonly default: number
  readonly min: number
  readonly max: number
}

/** `value` (undefined: the default) brought into [min, max]; a non-finite value is the default. */
export function clamp(value: number | undefined, range: Range): number {
  if (value === undefined || !Number.isFinite(value)) return range.default
  return Math.min(range.max, Math.max(range.min, Math.round(value)))
}
