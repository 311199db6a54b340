/**
 * Run test/helpers/driver.mjs as an identity: the request goes in on stdin,
 * the SandboxResult (or serialised typed error) comes back as JSON.
 */
import { spawn, type ChildProcess } from 'node:child_process'
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
  /**
   * The driver's environment (the sandbox builds its env from it), over the
   * identity's TMPDIR and XDG_RUNTIME_DIR in the run's own temp root.
   */
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
  const child = spawn(file!, args, { env: { ...identity.env, ...opts.env }, stdio, timeout: opts.timeoutMs ?? 20_000 })
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

/**
 * One long-lived driver (`driver.mjs --serve`) for a group of tests: jobs go
 * in as JSON lines and run concurrently; one Node start for the group.
 */
export class DriverSession {
  private readonly child: ChildProcess
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>()
  private nextId = 1
  private out = ''
  private err = ''

  constructor(identity: Identity, opts: DriverSpawnOptions) {
    const [file, ...args] = identity.wrap([process.execPath, driverPath, '--serve'])
    this.child = spawn(file!, args, { env: { ...identity.env, ...opts.env }, stdio: ['pipe', 'pipe', 'pipe'] })
    this.child.stdout!.on('data', (d: Buffer) => this.onData(d.toString()))
    this.child.stderr!.on('data', (d: Buffer) => (this.err += d.toString()))
    this.child.on('close', (code, signal) => {
      const why = new Error(`driver session (${identity.name}) exited ${code ?? signal}; stderr: ${this.err}`)
      for (const p of this.pending.values()) p.reject(why)
      this.pending.clear()
    })
  }

  private onData(text: string): void {
    this.out += text
    let nl: number
    while ((nl = this.out.indexOf('\n')) >= 0) {
      const line = this.out.slice(0, nl)
      this.out = this.out.slice(nl + 1)
      const { id, reply } = JSON.parse(line) as { id: number; reply: unknown }
      this.pending.get(id)?.resolve(reply)
      this.pending.delete(id)
    }
  }

  private send(job: unknown): Promise<unknown> {
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject })
      this.child.stdin!.write(JSON.stringify({ id, job }) + '\n')
    })
  }

  run(request: DriverRequest): Promise<DriverReply> {
    return this.send(request) as Promise<DriverReply>
  }

  async batch(requests: DriverRequest[]): Promise<DriverReply[]> {
    return ((await this.send({ batch: requests })) as { batch: DriverReply[] }).batch
  }

  /** Let running jobs finish, then the driver exits. */
  close(): void {
    this.child.stdin!.end()
  }
}
