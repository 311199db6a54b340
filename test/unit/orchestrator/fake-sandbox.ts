/**
 * A scripted stand-in for createSandbox(): records the options of every
 * sandbox made, and answers run() from a script that sees the argv and the
 * options. Used to test the decision flow without the launcher; the real
 * sandbox is exercised in test/escape/linux/orchestrator.
 */
import type { Enforcement, Sandbox, SandboxOptions, SandboxResult } from '../../../src/index.js'

export interface FakeRun {
  argv: readonly string[]
  options: SandboxOptions
  signal?: AbortSignal | undefined
}

export type Script = (run: FakeRun) => Partial<SandboxResult> | Promise<Partial<SandboxResult>>

export function enforcementFor(options: SandboxOptions, cwd: string): Enforcement {
  const write = options.write ?? []
  return {
    mode: 'landlock',
    modeReason: 'fake',
    status: 'full',
    mechanisms: ['landlock', 'seccomp'],
    network: options.network ?? 'off',
    filesystem: {
      confined: true,
      readAll: true,
      readRoots: ['/'],
      writeRoots: [cwd, ...write],
      denyRead: [...(options.denyRead ?? [])],
      protected: [`${cwd}/.git/hooks`],
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
      spawn: () => {
        throw new Error('not used')
      },
      run: async (argv, runOptions) => {
        const run = { argv, options, signal: runOptions?.signal }
        runs.push(run)
        return {
          command: [...argv],
          exitCode: 0,
          signal: null,
          stdout: '',
          stderr: '',
          outputTruncated: false,
          timedOut: false,
          aborted: false,
          durationMs: 1,
          enforcement,
          ...(await script(run)),
        }
      },
    }
  }
  return { create, made, runs }
}
