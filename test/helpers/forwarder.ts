/**
 * Driving namespace mode's forwarder (native/linux/forwarder.c) through the
 * launcher directly, with a plan, in the test's own network namespace: the
 * test can then be the client on 127.0.0.1:PORT and the server on the unix
 * socket, and see every byte that crosses.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import type { Readable, Writable } from 'node:stream'
import { loadNative } from '../../src/native/load.js'
import { forwarderProgram, seccompProgram } from '../../src/platform/linux/landlock/plan.js'

const { launcherPath } = loadNative()

/** A port free right now on 127.0.0.1 (the forwarder binds it). */
export async function freePort(): Promise<number> {
  const s = createServer()
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r))
  const port = (s.address() as AddressInfo).port
  await new Promise((r) => s.close(r))
  return port
}

/** A launcher plan with a forwarder on `port` → `socket`, under the forwarder's real seccomp filter. */
export function forwarderPlan(argv: string[], port: number, socket: string, extra: { forwarder?: Record<string, unknown>; rlimits?: object[] } = {}) {
  return {
    v: 1, argv, env: [`HTTP_PROXY=http://127.0.0.1:${port}`], cwd: '/', compat: 'hard', rlimits: extra.rlimits ?? [],
    landlock: { rules: [{ path: '/', access: ['read'] }], networkOff: false, connectPorts: [port], scopeSignal: true, scopeAbstractUnix: true, log: false },
    seccomp: seccompProgram('proxy'),
    forwarder: { port, socket, seccomp: forwarderProgram(), ...extra.forwarder },
  }
}

/** Start the launcher on `plan` with stdin a pipe; fd 3 carries the plan, fd 4 the status lines. */
export function spawnLauncher(plan: object, stdin: 'ignore' | 'pipe' = 'ignore'): ChildProcess {
  const child = spawn(launcherPath, ['--plan-fd', '3', '--status-fd', '4'], { env: {}, stdio: [stdin, 'pipe', 'pipe', 'pipe', 'pipe'] })
  const planPipe = child.stdio[3] as Writable
  planPipe.on('error', () => {})
  planPipe.end(JSON.stringify(plan))
  return child
}

/** The first status line: the command's confinement, or the setup error. */
export function firstStatus(child: ChildProcess): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let text = ''
    const status = child.stdio[4] as Readable
    status.on('data', (d: Buffer) => {
      text += d.toString()
      const nl = text.indexOf('\n')
      if (nl >= 0) resolve(JSON.parse(text.slice(0, nl)) as Record<string, unknown>)
    })
    status.on('close', () => reject(new Error(`the launcher reported nothing: ${text}`)))
  })
}

/** A running forwarder: its port, and stop() (ends the command, `cat`; the supervisor then sweeps the forwarder). */
export interface RunningForwarder {
  port: number
  launcher: ChildProcess
  stop(): Promise<void>
}

/** The forwarder on a free port → `socket`, for as long as the test needs it (`cat` waiting on its stdin). */
export async function startForwarder(socket: string, rlimits: object[] = []): Promise<RunningForwarder> {
  const port = await freePort()
  const launcher = spawnLauncher(forwarderPlan(['/bin/cat'], port, socket, { rlimits }), 'pipe')
  const status = await firstStatus(launcher)
  if (status.ok !== true) throw new Error(`the launcher failed: ${JSON.stringify(status)}`)
  const exited = new Promise<void>((r) => launcher.on('exit', () => r()))
  return { port, launcher, stop: () => (launcher.stdin!.end(), exited) }
}

/** What the forwarder (the launcher's child that is still the launcher: forked, not exec'd) holds: pipe and socket descriptors. Needs root: it is not dumpable. */
export function forwarderFds(launcherPid: number): { pipes: number; sockets: number } {
  const self = readFileSync(`/proc/${launcherPid}/cmdline`, 'latin1')
  const children = readFileSync(`/proc/${launcherPid}/task/${launcherPid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)
  const fwd = children.find((pid) => readFileSync(`/proc/${pid}/cmdline`, 'latin1') === self)
  if (!fwd) throw new Error(`no forwarder among the launcher's children ${children.join(' ')}`)
  const links = readdirSync(`/proc/${fwd}/fd`).map((fd) => readlinkSync(`/proc/${fwd}/fd/${fd}`))
  return { pipes: links.filter((l) => l.startsWith('pipe:')).length, sockets: links.filter((l) => l.startsWith('socket:')).length }
}
