/**
 * The one conversion of a failure below JavaScript into the typed error the
 * caller sees (a SetupError). What reaches it:
 *  - an error the addon threw (native/binding.cc): `{ code, errno, syscall,
 *    step, message }`, errno positive, `code` from the addon's short table
 *    ('EUNKNOWN' outside it);
 *  - a Node error from node:fs (NodeJS.ErrnoException): `{ code, errno,
 *    syscall, path }`, errno negative (libuv's);
 *  - the launcher's record of a failed step (status pipe): `{ ok: false,
 *    step, syscall, errno, detail }`;
 *  - an errno the zygote answered with: `{ errno }`.
 *
 * The errno number decides the name (`errnoName`: the one Node reports, so
 * `errnoCode` is the same whichever layer failed); without a number, the
 * error's own code is kept (a Node `ERR_*` code, the addon's 'EUNKNOWN'),
 * else 'EUNKNOWN'. A step or syscall the error names wins over the caller's,
 * which says what was being done.
 */
import { SetupError } from '../errors.js'
import { errnoName } from './errno.js'

export interface NativeErrorContext {
  /** The step, when the error names none (a Node error, an addon call, a record without one). */
  step: string
  /** The failing call, when the error names none; 'unknown' unless given. */
  syscall?: string
  /** What cordon was doing, appended to the message (a path, a limit). */
  detail?: string
}

/** The fields read off whatever was thrown or reported. */
interface NativeFields {
  step?: unknown
  syscall?: unknown
  errno?: unknown
  code?: unknown
  detail?: unknown
}

/** A non-empty string, else undefined (the addon reports a missing step or syscall as ''). */
const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined)

export function fromNativeError(err: unknown, context: NativeErrorContext): SetupError {
  const e: NativeFields = typeof err === 'object' && err !== null ? err : {}
  const errno = typeof e.errno === 'number' ? Math.abs(e.errno) : 0
  return new SetupError(
    text(e.step) ?? context.step,
    text(e.syscall) ?? context.syscall ?? 'unknown',
    errno,
    errno !== 0 ? errnoName(errno) : (text(e.code) ?? 'EUNKNOWN'),
    context.detail ?? text(e.detail),
    err instanceof Error ? { cause: err } : undefined,
  )
}
