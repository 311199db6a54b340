/**
 * The Windows launcher's status stream (native/win32/status.c): one JSON
 * object per line — the setup record (`ok`), the error record, the exit
 * record — and what an error record means as a SetupError.
 */
import { SetupError } from '../../errors.js'

export interface Win32Setup {
  ok: true
  token: string
  integrity: 'low' | 'medium'
  job: boolean
  mitigations: boolean
  pid: number
  /** The launcher's plan and status pipe handles (the command must not have them). */
  handles: [number, number]
}
export interface Win32Failure {
  ok: false
  step: string
  call: string
  /** GetLastError() */
  error: number
  detail: string
}
export interface Win32Exit {
  exit: true
  code: number
  stopped: boolean
  restored: boolean
  restoreError?: Omit<Win32Failure, 'ok'>
}
export type Win32Record = Win32Setup | Win32Failure | Win32Exit

/** Win32 error codes (winerror.h) as the errno names the rest of cordon reports. */
const ERRNO: Record<number, [number, string]> = {
  2: [2, 'ENOENT'], // ERROR_FILE_NOT_FOUND
  3: [2, 'ENOENT'], // ERROR_PATH_NOT_FOUND
  5: [13, 'EACCES'], // ERROR_ACCESS_DENIED
  8: [12, 'ENOMEM'], // ERROR_NOT_ENOUGH_MEMORY
  13: [22, 'EINVAL'], // ERROR_INVALID_DATA
  87: [22, 'EINVAL'], // ERROR_INVALID_PARAMETER
  193: [8, 'ENOEXEC'], // ERROR_BAD_EXE_FORMAT
  1314: [1, 'EPERM'], // ERROR_PRIVILEGE_NOT_HELD
}

/** Every complete line of `text` as a record; a line that is not one is skipped. */
export function parseRecords(text: string): Win32Record[] {
  const out: Win32Record[] = []
  for (const line of text.split('\n')) {
    if (!line.trim()) continue
    try {
      out.push(JSON.parse(line) as Win32Record)
    } catch {
      /* a torn line (the launcher was killed mid-write): the exit status decides */
    }
  }
  return out
}

/** A launcher error record as a SetupError; a program that could not be started is step `execve`, as on Linux. */
export function setupErrorOf(f: Omit<Win32Failure, 'ok'>): SetupError {
  const [errno, code] = ERRNO[f.error] ?? [f.error, `WIN32_${f.error}`]
  const step = f.step === 'spawn' && f.call === 'CreateProcessAsUserW' ? 'execve' : f.step
  return new SetupError(step, f.call, errno, code, `${f.detail ? `${f.detail}; ` : ''}Win32 error ${f.error}`)
}
