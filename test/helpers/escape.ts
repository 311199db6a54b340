/**
 * The escape-test harness: one identity × one mode × one temp tree. Runs a
 * probe confined (through the driver, as the identity) and unconfined (a
 * plain spawn by the same identity), and asserts the exact denial and that
 * the probe does work when nothing confines it.
 */
import { describe, expect, inject } from 'vitest'
import { join } from 'node:path'
import { identities, type Identity } from './identity.js'
import { modeMissing, TEST_MODES, type TestMode } from './modes.js'
import { describeWhere, firstMissing, host } from './requirements.js'
import { DriverSession, INHERITED_FD, runDriver, runDriverBatch, type DriverReply, type DriverRequest, type DriverSpawnOptions } from './run-driver.js'
import { makeTree, type Tree } from './tree.js'

/**
 * What the unconfined run must print: `OK`, an exact errno (the kernel's own
 * answer where success needs a privilege this identity lacks), `differs`
 * (anything but the confined answer: the denial came from the sandbox), or
 * `any` (uninformative for this identity; the reason is in the test).
 */
export type Baseline = 'OK' | 'differs' | 'any' | (string & {})

export interface RunOpts {
  options?: Record<string, unknown>
  runOptions?: Record<string, unknown>
  env?: Record<string, string>
  extraFd?: number
}

export const SECRET_ENV = { GITHUB_TOKEN: 'ghp_cordonprobe0000', AWS_SECRET_ACCESS_KEY: 'aws-cordon-probe-secret' }

export class Escape {
  readonly tree: Tree
  private readonly probeDir = inject('cordonProbeDir')
  private session: DriverSession | undefined

  constructor(
    readonly identity: Identity,
    readonly mode: TestMode,
    label: string,
  ) {
    this.tree = makeTree(identity, label)
  }

  /** Path of a compiled probe: `files`, `procs`, `kernel`, `net`. */
  probe(name: string): string {
    return join(this.probeDir, `probe-${name}`)
  }

  options(extra: Record<string, unknown> = {}): Record<string, unknown> {
    return { cwd: this.tree.work, profile: 'workspace-write', mode: this.mode, compat: 'best-effort', denyRead: [this.tree.secretDir], ...extra }
  }

  private spawnOpts(o: RunOpts): DriverSpawnOptions {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: this.tree.home, LANG: 'C', ...SECRET_ENV, ...o.env }
    return { env, ...(o.extraFd !== undefined ? { extraFd: o.extraFd } : {}) }
  }

  private confinedRequest(command: string[], o: RunOpts): DriverRequest {
    return { options: this.options(o.options), command, ...(o.runOptions ? { runOptions: o.runOptions } : {}) }
  }

  private unconfinedRequest(command: string[], o: RunOpts): DriverRequest {
    return { options: { cwd: this.tree.work }, command, unconfined: true, ...(o.extraFd !== undefined ? { passFd: INHERITED_FD } : {}) }
  }

  /** The shared driver when the run needs nothing special, else undefined (own driver). */
  private shared(o: RunOpts): DriverSession | undefined {
    if (o.env || o.extraFd !== undefined) return undefined
    this.session ??= new DriverSession(this.identity, this.spawnOpts({}))
    return this.session
  }

  confined(command: string[], o: RunOpts = {}): Promise<DriverReply> {
    const request = this.confinedRequest(command, o)
    return this.shared(o)?.run(request) ?? runDriver(this.identity, request, this.spawnOpts(o))
  }

  unconfined(command: string[], o: RunOpts = {}): Promise<DriverReply> {
    const request = this.unconfinedRequest(command, o)
    return this.shared(o)?.run(request) ?? runDriver(this.identity, request, this.spawnOpts(o))
  }

  /** Confined, then unconfined, in one driver job (in this order: some probes are destructive). */
  both(command: string[], o: RunOpts = {}): Promise<[DriverReply, DriverReply]> {
    const requests = [this.confinedRequest(command, o), this.unconfinedRequest(command, o)]
    const replies = this.shared(o)?.batch(requests) ?? runDriverBatch(this.identity, requests, this.spawnOpts(o))
    return replies as Promise<[DriverReply, DriverReply]>
  }

  /** Confined: exactly `expected` (an errno name, `OK`, or `SIGSYS`); then unconfined: `baseline`. */
  async denial(command: string[], expected: string | readonly string[], baseline: Baseline = 'OK', o: RunOpts = {}): Promise<void> {
    const allowed = typeof expected === 'string' ? [expected] : expected
    const [confined, plain] = baseline === 'any' ? [await this.confined(command, o), undefined] : await this.both(command, o)
    expect(allowed, explain('confined', confined)).toContain(outcomeOf(confined))
    if (!plain) return
    const got = outcomeOf(plain)
    if (baseline === 'differs') expect(allowed, explain('unconfined', plain)).not.toContain(got)
    else expect(got, explain('unconfined', plain)).toBe(baseline)
    expect(got.startsWith('SETUP:'), explain('unconfined', plain)).toBe(false)
  }

  cleanup(): void {
    this.session?.close()
    this.tree.cleanup()
  }
}

/**
 * The escape-test matrix: `<area> — caller: <name>` for every identity and,
 * inside it, `mode: <mode>` for every sandbox mode, with `body` declaring the
 * tests. A cell whose identity, mode or compiled probes this host lacks is
 * skipped with the reason (requirements.ts).
 */
export function describeEscape(area: string, body: (identity: Identity, mode: TestMode) => void, { concurrent = true } = {}): void {
  for (const identity of identities()) {
    describe(`${area} — caller: ${identity.name}`, () => {
      for (const mode of TEST_MODES) {
        const missing = firstMissing(modeMissing(identity, mode), host().compiler)
        describeWhere(missing, `mode: ${mode}`, () => body(identity, mode), { concurrent })
      }
    })
  }
}

/** The probe's verdict: the signal that killed it, its first output token, or the driver's error. */
export function outcomeOf(reply: DriverReply): string {
  if (reply.error) return `ERROR:${reply.error.name}:${reply.error.message}`
  const r = reply.result
  if (r.signal) return r.signal
  if (r.exitCode !== 0) return `EXIT:${r.exitCode}`
  return firstLine(r.stdout).split(' ')[0] ?? ''
}

export function firstLine(text: string): string {
  return text.split('\n')[0]!.trim()
}

function explain(what: string, reply: DriverReply): string {
  return `${what} run: ${JSON.stringify(reply.error ?? { exitCode: reply.result.exitCode, signal: reply.result.signal, stdout: reply.result.stdout, stderr: reply.result.stderr })}`
}
