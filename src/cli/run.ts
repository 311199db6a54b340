/**
 * `cordon run [options] [--] CMD ARGS...` (flags and exit statuses: the RUN
 * table in flags.ts, docs/cli.md). Exit status: the command's own; 128+N for
 * signal N; 64 for a usage error; 125 when the sandbox could not be set up
 * (reason on stderr); 126/127 when the command was found but not executable /
 * not found (like env(1)).
 */
import { constants } from 'node:os'
import { SetupError } from '../errors.js'
import { createSandbox } from '../sandbox/sandbox.js'
import { parseHostPattern } from '../network/host-pattern.js'
import { loadProfile } from '../profile/profiles.js'
import { hardenProcess } from '../harden.js'
import { MAX_TIMEOUT_MS, type SandboxOptions } from '../sandbox/options.js'
import type { SandboxResult } from '../sandbox/result.js'
import type { Enforcement } from '../platform/enforcement.js'
import { one, parseArgs, UsageError, type Parsed } from './args.js'
import { EXIT, RUN } from './flags.js'
import { printHelp } from './help.js'
import type { Io } from './io.js'
import { reportError, reportUsage } from './report.js'

/**
 * The run's network from `--network` and the host flags. `--allow-host` /
 * `--deny-host` make it an allowlist (docs/network.md): the profile's own
 * allowlist, if it has one, with these entries added — a profile's `off`,
 * `inet` or `on` is replaced by the hosts named. Together with `--network`
 * they are a usage error: which of the two was meant cannot be guessed.
 */
function networkOption(p: Parsed, profile: string | undefined): SandboxOptions['network'] {
  const level = one(p, '--network') as SandboxOptions['network']
  const allow = p.values['--allow-host'] ?? []
  const deny = p.values['--deny-host'] ?? []
  if (allow.length === 0 && deny.length === 0) return level
  if (level !== undefined) throw new UsageError(`--network ${String(level)} cannot be combined with --allow-host or --deny-host (those make the network an allowlist)`)
  // A bad entry is a mistake on the command line (exit 64), named by its flag, before any profile is read.
  for (const [flag, hosts] of [['--allow-host', allow], ['--deny-host', deny]] as const) {
    for (const h of hosts) {
      try {
        parseHostPattern(h, `${flag} ${h}`)
      } catch (e) {
        throw new UsageError((e as Error).message) // names the flag and the entry (its `where`)
      }
    }
  }
  const own = loadProfile(profile ?? 'workspace-write').network
  const base = typeof own === 'object' ? own : { allow: [], deny: [] }
  return { allow: [...base.allow, ...allow], deny: [...base.deny, ...deny] }
}

/** The sandbox options of parsed `run`/`explain` flags (their values are already checked against the table). */
export function sandboxOptions(p: Parsed): SandboxOptions {
  const profile = one(p, '--profile')
  const cwd = one(p, '--cwd')
  const compat = one(p, '--compat') as SandboxOptions['compat']
  const network = networkOption(p, profile)
  return {
    ...(profile ? { profile } : {}),
    ...(cwd ? { cwd } : {}),
    mode: (one(p, '--mode') ?? 'auto') as NonNullable<SandboxOptions['mode']>,
    ...(compat ? { compat } : {}),
    ...(network ? { network } : {}),
    ...(p.switches.has('--allow-unconfined-fs') ? { allowUnconfinedFilesystem: true } : {}),
    read: p.values['--read'] ?? [],
    write: p.values['--write'] ?? [],
    denyRead: p.values['--deny-read'] ?? [],
  }
}

export interface RunArgs {
  options: SandboxOptions
  command: string[]
  json: boolean
  timeout?: number
}

/** What `cordon run` was asked to do; a UsageError if the command line is wrong. */
export function runArgs(p: Parsed): RunArgs {
  if (p.error !== undefined) throw new UsageError(p.error)
  const timeout = one(p, '--timeout')
  if (timeout !== undefined && !(/^[1-9]\d*$/.test(timeout) && Number(timeout) <= MAX_TIMEOUT_MS)) {
    throw new UsageError(`--timeout must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS} (got '${timeout}')`)
  }
  return { options: sandboxOptions(p), command: p.command, json: p.switches.has('--json'), ...(timeout ? { timeout: Number(timeout) } : {}) }
}

/** `runArgs` of an argv (the build warms the V8 code cache with it). */
export function optionsFromArgs(argv: readonly string[]): RunArgs {
  return runArgs(parseArgs(argv, RUN))
}

/**
 * What `cordon run` with this argv would enforce here, planned without
 * running anything. The build warms the V8 code cache with it: the planning
 * code a run calls (profile resolution, the backend's plan) is then in the
 * cache instead of compiled on every start.
 */
export function planFromArgs(argv: readonly string[]): Enforcement {
  const sb = createSandbox(optionsFromArgs(argv).options)
  try {
    return sb.report()
  } finally {
    sb.close()
  }
}

function exitFor(err: unknown): number {
  if (err instanceof SetupError && err.step === 'execve') return err.errnoCode === 'ENOENT' ? EXIT.notFound : EXIT.notExecutable
  return EXIT.setup
}

/** What the run's limits stopped, in words (a command killed at the memory limit otherwise shows only "Killed"). */
function limitLines(r: SandboxResult): string[] {
  const ev = r.limitEvents
  const l = r.enforcement.limits
  const out: string[] = []
  if (ev?.pidsLimitHit) out.push(`the process limit (pids ${l?.pids}) refused ${ev.pidsLimitHit} fork(s)`)
  if (ev?.oomKills) out.push(`${ev.oomKills} process(es) killed at the memory limit (memory ${l?.memory} bytes)`)
  return out
}

export async function runCommand(argv: readonly string[], io: Io): Promise<number> {
  const p = parseArgs(argv, RUN)
  const json = p.switches.has('--json')
  if (p.switches.has('--help')) return printHelp(RUN, json, io)
  let parsed: RunArgs
  try {
    parsed = runArgs(p)
  } catch (err) {
    // The host flags read the profile: a bad one is a setup failure (125), as it is without them.
    if (err instanceof UsageError) return reportUsage(RUN, err, json, io)
    return reportError(RUN.name, err, json, io, EXIT.setup)
  }
  try {
    hardenProcess()
    const sb = createSandbox(parsed.options)
    const stdio = parsed.json ? 'pipe' : 'inherit'
    const ac = new AbortController()
    let stoppedBy: NodeJS.Signals = 'SIGINT'
    const forward = (signal: NodeJS.Signals) => ((stoppedBy = signal), ac.abort())
    process.once('SIGINT', forward).once('SIGTERM', forward)
    try {
      const r = await sb.run(parsed.command, { stdin: parsed.json ? 'ignore' : 'inherit', stdout: stdio, stderr: stdio, signal: ac.signal, ...(parsed.timeout ? { timeout: parsed.timeout } : {}) })
      if (parsed.json) io.stdout(JSON.stringify(r, null, 2) + '\n')
      else {
        if (r.enforcement.status !== 'full') io.stderr(`cordon: enforcement ${r.enforcement.status} (${r.enforcement.mode}): missing ${r.enforcement.missing.map((m) => m.protection).join(', ')}\n`)
        for (const line of limitLines(r)) io.stderr(`cordon: ${line}\n`)
      }
      if (r.signal) return 128 + ((constants.signals as Record<string, number>)[r.signal] ?? 0)
      // Stopped by the caller's ^C or SIGTERM before the command started or
      // without a status of its own: the shell convention, 128 + that signal.
      if (r.exitCode === null && r.isCanceled) return 128 + constants.signals[stoppedBy]
      return r.exitCode ?? EXIT.setup
    } finally {
      process.off('SIGINT', forward).off('SIGTERM', forward)
      sb.close()
    }
  } catch (err) {
    return reportError(RUN.name, err, json, io, exitFor(err))
  }
}
