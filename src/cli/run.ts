/**
 * `cordon run [options] -- CMD ARGS...`
 * Exit status: the command's own; 128+N for signal N; 125 when the sandbox
 * could not be set up (reason on stderr); 126/127 when the command was found
 * but not executable / not found (like env(1)).
 */
import { constants } from 'node:os'
import { CordonError, PolicyError, SetupError } from '../errors.js'
import { createSandbox } from '../sandbox/sandbox.js'
import { hardenProcess } from '../harden.js'
import type { SandboxOptions } from '../sandbox/options.js'
import { one, oneOf, parseArgs } from './args.js'
import type { Io } from './io.js'

const SPEC = {
  values: {
    '--profile': {},
    '--read': { multi: true },
    '--write': { multi: true },
    '--deny-read': { multi: true },
    '--network': {},
    '--mode': {},
    '--compat': {},
    '--cwd': {},
    '--timeout': {},
  },
  booleans: ['--json'],
}

export const RUN_USAGE =
  'usage: cordon run [--profile NAME|FILE] [--read PATH]... [--write PATH]... [--deny-read PATH]...\n' +
  '                  [--network off|on] [--mode auto|namespaces|landlock] [--compat best-effort|hard]\n' +
  '                  [--cwd DIR] [--timeout MS] [--json] -- CMD ARGS...'

export function optionsFromArgs(argv: readonly string[]): { options: SandboxOptions; command: string[]; json: boolean; timeout?: number } {
  const p = parseArgs(argv, SPEC)
  if (p.rest.length === 0) throw new PolicyError(`no command given\n${RUN_USAGE}`, { where: 'command line' })
  const timeout = one(p, '--timeout')
  if (timeout !== undefined && !/^\d+$/.test(timeout)) throw new PolicyError('--timeout must be milliseconds', { where: 'command line' })
  const options: SandboxOptions = {
    ...(one(p, '--profile') ? { profile: one(p, '--profile')! } : {}),
    ...(one(p, '--cwd') ? { cwd: one(p, '--cwd')! } : {}),
    mode: oneOf(p, '--mode', ['auto', 'namespaces', 'landlock'] as const) ?? 'auto',
    ...(oneOf(p, '--compat', ['hard', 'best-effort'] as const) ? { compat: oneOf(p, '--compat', ['hard', 'best-effort'] as const)! } : {}),
    ...(oneOf(p, '--network', ['off', 'on'] as const) ? { network: oneOf(p, '--network', ['off', 'on'] as const)! } : {}),
    read: p.values['--read'] ?? [],
    write: p.values['--write'] ?? [],
    denyRead: p.values['--deny-read'] ?? [],
  }
  return { options, command: p.rest, json: p.booleans.has('--json'), ...(timeout ? { timeout: Number(timeout) } : {}) }
}

function exitFor(err: unknown): number {
  if (err instanceof SetupError && err.step === 'execve') return err.errnoCode === 'ENOENT' ? 127 : 126
  return 125
}

export async function runCommand(argv: readonly string[], io: Io): Promise<number> {
  let parsed
  try {
    parsed = optionsFromArgs(argv)
  } catch (err) {
    io.stderr(`cordon: ${(err as Error).message}\n`)
    return 125
  }
  try {
    hardenProcess()
    const sb = createSandbox(parsed.options)
    const stdio = parsed.json ? 'pipe' : 'inherit'
    const ac = new AbortController()
    const forward = () => ac.abort()
    process.once('SIGINT', forward).once('SIGTERM', forward)
    try {
      const r = await sb.run(parsed.command, { stdin: parsed.json ? 'ignore' : 'inherit', stdout: stdio, stderr: stdio, signal: ac.signal, ...(parsed.timeout ? { timeout: parsed.timeout } : {}) })
      if (parsed.json) io.stdout(JSON.stringify(r, null, 2) + '\n')
      else if (r.enforcement.status !== 'full') io.stderr(`cordon: enforcement ${r.enforcement.status} (${r.enforcement.mode}): missing ${r.enforcement.missing.map((m) => m.protection).join(', ')}\n`)
      if (r.signal) return 128 + ((constants.signals as Record<string, number>)[r.signal] ?? 0)
      return r.exitCode ?? 125
    } finally {
      process.off('SIGINT', forward).off('SIGTERM', forward)
      sb.close()
    }
  } catch (err) {
    if (parsed.json) io.stdout(JSON.stringify({ error: serializeError(err) }, null, 2) + '\n')
    io.stderr(`cordon: ${(err as Error).message}\n`)
    return exitFor(err)
  }
}

export function serializeError(err: unknown): Record<string, unknown> {
  if (err instanceof CordonError) return { ...err, name: err.name, message: err.message }
  return { name: 'Error', message: String((err as Error)?.message ?? err) }
}
