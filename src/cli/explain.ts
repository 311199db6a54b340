/** `cordon explain [run options]`: the enforcement report for a profile here, without running anything. */
import { createSandbox } from '../sandbox/sandbox.js'
import type { PlatformEnforcement } from '../platform/enforcement.js'
import { parseArgs, UsageError } from './args.js'
import { EXIT, EXPLAIN } from './flags.js'
import { printHelp } from './help.js'
import type { Io } from './io.js'
import { reportError, reportUsage } from './report.js'
import { sandboxOptions } from './run.js'

/** The backend's own facts, one line. */
function platformLine(p: PlatformEnforcement): string {
  switch (p.os) {
    case 'linux':
      return `landlock ABI: ${p.landlockAbi ?? 'none'}; seccomp: ${p.seccomp}`
    case 'darwin':
      return `seatbelt: ${p.seatbelt}; denial tag: ${p.denialTag ?? 'none'}; ${p.verified}`
    case 'win32':
      return `token: ${p.token}; integrity: ${p.integrity}; job: kill-on-close; verified: ${p.verified}`
  }
}

export function explainCommand(argv: readonly string[], io: Io): number {
  const p = parseArgs(argv, EXPLAIN)
  const json = p.switches.has('--json')
  if (p.switches.has('--help')) return printHelp(EXPLAIN, json, io)
  if (p.error !== undefined) return reportUsage(EXPLAIN, new UsageError(p.error), json, io)
  let sb: ReturnType<typeof createSandbox>
  try {
    sb = createSandbox(sandboxOptions(p))
  } catch (err) {
    if (err instanceof UsageError) return reportUsage(EXPLAIN, err, json, io)
    return reportError(EXPLAIN.name, err, json, io, EXIT.setup)
  }
  try {
    const e = sb.report()
    if (json) {
      io.stdout(JSON.stringify(e, null, 2) + '\n')
      return 0
    }
    io.stdout(`mode: ${e.mode} (${e.modeReason})\nstatus: ${e.status}\n`)
    io.stdout(`${platformLine(e.platform)}; network: ${e.network}\n`)
    if (e.proxy) io.stdout(`network allow: ${e.proxy.allow.join(', ') || '(none)'}\nnetwork deny: ${e.proxy.deny.join(', ') || '(none)'}\n`)
    io.stdout(`read: ${e.filesystem.readAll ? 'all' : e.filesystem.readRoots.join(', ')}\nwrite: ${e.filesystem.writeRoots.join(', ')}\n`)
    io.stdout(`deny read: ${e.filesystem.denyRead.join(', ') || '(none)'}\nprotected: ${e.filesystem.protected.join(', ') || '(none)'}\n`)
    for (const m of e.missing) io.stdout(`missing: ${m.protection} — ${m.reason}${m.fix ? ` (fix: ${m.fix})` : ''}\n`)
    for (const n of e.notes) io.stdout(`note: ${n}\n`)
    return 0
  } catch (err) {
    return reportError(EXPLAIN.name, err, json, io, EXIT.setup)
  } finally {
    sb.close()
  }
}
