/**
 * Run test/helpers/driver.mjs as an identity: the request goes in on stdin,
 * the SandboxResult (or serialised typed error) comes back as JSON.
 */
import { spawn } from 'node:child_process'
import type { Enforcement } from '../../src/index.js'
import type { Identity } from './identity.js'
import { driverPath } from './paths.js'

export interface DriverRequest {
  /** createSandbox() options (JSON: no AbortSignal). */
  options: Record<string, unknown>
  command: string[]
  runOptions?: Record<string, unknown>
  /** Spawn the command plainly, same identity, no sandbox. */
  unconfined?: boolean
  /** Unconfined only: hand this inherited fd on to the command. */
  passFd?: number
}

export interface SerializedError {
  name: string
  code?: string
  step?: string
  syscall?: string
  errnoCode?: string
  where?: string
  message: string
}

export interface DriverResult {
  exitCode: number | null
  signal: string | null
  stdout: string
  stderr: string
  timedOut?: boolean
  enforcement?: Enforcement
}

export type DriverReply = { result: DriverResult; error?: undefined } | { error: SerializedError; result?: undefined }

export interface DriverSpawnOptions {
  /** The driver's whole environment (the sandbox builds its env from it). */
  env: Record<string, string>
  /** An fd the driver inherits as its fd 7 (the sandbox must not pass it on). */
  extraFd?: number
  timeoutMs?: number
}

/** The fd number an `extraFd` appears as in the driver. */
export const INHERITED_FD = 7

export function runDriver(identity: Identity, request: DriverRequest, opts: DriverSpawnOptions): Promise<DriverReply> {
  return spawnDriver(identity, request, opts) as Promise<DriverReply>
}

/** Several requests in one driver process, in order (one Node start). */
export async function runDriverBatch(identity: Identity, requests: DriverRequest[], opts: DriverSpawnOptions): Promise<DriverReply[]> {
  const reply = (await spawnDriver(identity, { batch: requests }, opts)) as { batch: DriverReply[] }
  return reply.batch
}

function spawnDriver(identity: Identity, request: unknown, opts: DriverSpawnOptions): Promise<unknown> {
  const [file, ...args] = identity.wrap([process.execPath, driverPath])
  const stdio: (number | 'pipe' | 'ignore')[] = ['pipe', 'pipe', 'pipe']
  if (opts.extraFd !== undefined) {
    while (stdio.length < INHERITED_FD) stdio.push('ignore')
    stdio.push(opts.extraFd)
  }
  const child = spawn(file!, args, { env: opts.env, stdio, timeout: opts.timeoutMs ?? 20_000 })
  let out = ''
  let err = ''
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()))
  child.stdin!.end(JSON.stringify(request))
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code, signal) => {
      const line = out.trim().split('\n').pop() ?? ''
      try {
        resolve(JSON.parse(line))
      } catch {
        reject(new Error(`driver (${identity.name}) exited ${code ?? signal} without a reply; stdout: ${out}; stderr: ${err}`))
      }
    })
  })
}
