/**
 * Spawn the launcher (through execa) with the plan on fd 3 and the status
 * pipe on fd 4, and turn its report into a result or a typed error.
 *
 * The launcher itself gets an empty environment: LD_PRELOAD and friends in
 * the caller's environment must not run code in it before it confines
 * anything. The command's environment travels inside the plan.
 */
import { execa, type Options, type ResultPromise } from 'execa'
import { constants } from 'node:os'
import { SetupError } from '../../errors.js'
import type { LauncherPlan } from './plan.js'

export const PLAN_FD = 3
export const STATUS_FD = 4
/** Exit status of the launcher when a confinement step failed. */
export const EXIT_SETUP = 125

export interface LaunchStatus {
  ok: boolean
  landlockAbi?: number
  fsHandled?: string
  netHandled?: boolean
  scoped?: number
  seccompRules?: number
  noNewPrivs?: boolean
  capsDropped?: boolean
  boundingDropped?: boolean
  skippedRules?: number
  step?: string
  syscall?: string
  errno?: number
  detail?: string
}

const errnoNames = new Map(Object.entries(constants.errno).map(([k, v]) => [v, k]))
export const errnoName = (n: number): string => errnoNames.get(n) ?? `E${n}`

export interface LaunchSpec {
  /** Executable to spawn: the launcher, or bwrap with the launcher inside. */
  file: string
  args: string[]
  plan: LauncherPlan
  stdin: 'pipe' | 'ignore' | 'inherit'
  stdout: 'pipe' | 'inherit' | 'ignore'
  stderr: 'pipe' | 'inherit' | 'ignore'
  input?: string | Uint8Array
  buffer: boolean
  maxBuffer?: number
  encoding?: 'utf8' | 'buffer'
}

export interface Launched {
  subprocess: ResultPromise
  /** Resolves with the launcher's last status record once the status pipe closes. */
  status: Promise<LaunchStatus | undefined>
}

function readStatus(subprocess: ResultPromise): Promise<LaunchStatus | undefined> {
  const stream = subprocess.stdio[STATUS_FD] as NodeJS.ReadableStream | undefined
  return new Promise((resolve) => {
    if (!stream) return resolve(undefined)
    let text = ''
    stream.setEncoding('utf8')
    stream.on('data', (d: string) => (text += d))
    const done = () => {
      const lines = text.split('\n').filter(Boolean)
      const last = lines[lines.length - 1]
      try {
        resolve(last ? (JSON.parse(last) as LaunchStatus) : undefined)
      } catch {
        resolve(undefined)
      }
    }
    stream.on('end', done)
    stream.on('close', done)
    stream.on('error', done)
  })
}

export function launch(spec: LaunchSpec): Launched {
  const planBytes = new TextEncoder().encode(JSON.stringify(spec.plan))
  const subprocess = execa(spec.file, spec.args, {
    stdio: [spec.input !== undefined ? 'pipe' : spec.stdin, spec.stdout, spec.stderr, planBytes, 'pipe'],
    ...(spec.input !== undefined ? { input: spec.input } : {}),
    env: {},
    extendEnv: false,
    reject: false,
    buffer: spec.buffer,
    stripFinalNewline: false,
    maxBuffer: spec.maxBuffer ?? 64 * 1024 * 1024,
    encoding: spec.encoding ?? 'utf8',
  } as Options)
  return { subprocess, status: readStatus(subprocess) }
}

/** A launcher error record → the typed error the caller sees. */
export function setupErrorFrom(status: LaunchStatus | undefined, exitCode: number | undefined, stderr: string): SetupError {
  if (status && !status.ok) {
    const errno = status.errno ?? 0
    return new SetupError(status.step ?? 'unknown', status.syscall ?? 'unknown', errno, errnoName(errno), status.detail || undefined)
  }
  const tail = stderr.trim().split('\n').slice(-3).join(' | ')
  return new SetupError('launch', 'spawn', 0, 'EUNKNOWN', `the sandbox exited ${exitCode ?? '?'} before reporting${tail ? `: ${tail}` : ''}`)
}
