/**
 * A scripted stand-in for createSandbox(): records the options of every
 * sandbox made, and answers run() and spawn() from a script that sees the
 * argv and the options. spawn() writes the scripted stdout/stderr (or the
 * scripted `chunks`, in order, a tick apart) to its streams before it
 * resolves, as the real one does. Used to test the decision flow without
 * the launcher; the real sandbox is exercised in test/escape/linux/orchestrator.
 */
import { PassThrough } from 'node:stream'
import type { Enforcement, RunOptions, Sandbox, SandboxOptions, SandboxProcess, SandboxResult } from '../../../src/index.js'

export interface FakeRun {
  argv: readonly string[]
  options: SandboxOptions
  signal?: AbortSignal | undefined
  /** The run options as given (spawn: stdin, maxBuffer, …). */
  runOptions?: RunOptions | undefined
}

/** Output written in this order, one event-loop turn apart (spawn only). */
export type FakeChunks = { stream: 'stdout' | 'stderr'; data: string | Buffer }[]

export type Script = (run: FakeRun) => FakeResult | Promise<FakeResult>
export type FakeResult = Partial<SandboxResult> & { chunks?: FakeChunks }

/**
 * Landlock mode unless the options ask for namespace mode; there, the
 * options' protected paths are listed as protected (as bwrap binds them).
 */
export function enforcementFor(options: SandboxOptions, cwd: string): Enforcement {
  const write = options.write ?? []
  const namespaces = options.mode === 'namespaces'
  return {
    mode: namespaces ? 'namespaces' : 'landlock',
    modeReason: 'fake',
    status: 'full',
    mechanisms: ['landlock', 'seccomp'],
    network: typeof options.network === 'object' ? 'proxy' : (options.network ?? 'off'),
    filesystem: {
      confined: true,
      readAll: true,
      readRoots: ['/'],
      writeRoots: [cwd, ...write],
      denyRead: [...(options.denyRead ?? [])],
      protected: [`${cwd}/.git/hooks`, ...(namespaces ? (options.protected ?? []) : [])],
      narrowed: [],
      privateDirs: [],
    },
    envDropped: [],
    missing: [],
    notes: [],
    widening: { writeExcluded: [] },
    platform: { os: 'linux', landlockAbi: 6, seccomp: true, noNewPrivs: true, capabilitiesDropped: true },
  }
}

function base(argv: readonly string[], enforcement: Enforcement): SandboxResult {
  return {
    command: [...argv],
    exitCode: 0,
    signal: null,
    stdout: '',
    stderr: '',
    outputTruncated: false,
    timedOut: false,
    isCanceled: false,
    durationMs: 1,
    enforcement,
  }
}

export function fakeSandboxes(script: Script, cwd: string) {
  const made: SandboxOptions[] = []
  const runs: FakeRun[] = []
  const create = (options: SandboxOptions): Sandbox => {
    made.push(options)
    const enforcement = enforcementFor(options, cwd)
    return {
      cwd: options.cwd ?? cwd,
      profileName: typeof options.profile === 'string' ? options.profile : 'custom',
      report: () => enforcement,
      close: () => {},
      ready: () => Promise.resolve(),
      // Text results only (the orchestrator never asks for Buffers).
      spawn: ((file: string, args: readonly string[] = [], runOptions?: RunOptions): SandboxProcess => {
        const argv = [file, ...args]
        const run = { argv, options, signal: runOptions?.signal, runOptions }
        runs.push(run)
        const stdout = new PassThrough()
        const stderr = new PassThrough()
        const done = (async (): Promise<SandboxResult> => {
          const { chunks, ...r } = await script(run)
          const written = chunks ?? [
            { stream: 'stdout' as const, data: r.stdout ?? '' },
            { stream: 'stderr' as const, data: r.stderr ?? '' },
          ]
          // As the backends do: with an output listener the chunks go to it, not to streams.
          const listener = runOptions?.onOutput
          for (const c of written) {
            if (c.data.length > 0) {
              if (listener) listener(c.stream, Buffer.from(c.data))
              else (c.stream === 'stdout' ? stdout : stderr).write(c.data)
            }
            await new Promise((tick) => setImmediate(tick))
          }
          stdout.end()
          stderr.end()
          await new Promise((tick) => setImmediate(tick))
          const text = (s: 'stdout' | 'stderr') => Buffer.concat(written.filter((c) => c.stream === s).map((c) => Buffer.from(c.data))).toString('utf8')
          return { ...base(argv, enforcement), ...r, stdout: text('stdout'), stderr: text('stderr') }
        })()
        const proc: SandboxProcess = Object.assign(done, {
          pid: 1,
          stdin: null,
          stdout: runOptions?.onOutput ? null : stdout,
          stderr: runOptions?.onOutput ? null : stderr,
          terminal: null,
          kill: () => {},
          enforcement: Promise.resolve(enforcement),
        })
        return proc
      }) as Sandbox['spawn'],
      run: (async (argv: readonly string[], runOptions?: RunOptions): Promise<SandboxResult> => {
        const run = { argv, options, signal: runOptions?.signal, runOptions }
        runs.push(run)
        const { chunks: _ignored, ...r } = await script(run)
        return { ...base(argv, enforcement), ...r }
      }) as Sandbox['run'],
    }
  }
  return { create, made, runs }
}
