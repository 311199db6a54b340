/** `cordon doctor [--json]`: what this host can enforce and how to fix the rest. */
import { doctor } from '../doctor.js'
import { parseArgs, UsageError } from './args.js'
import { DOCTOR, EXIT } from './flags.js'
import { printHelp } from './help.js'
import type { Io } from './io.js'
import { reportError, reportUsage } from './report.js'

export function doctorCommand(argv: readonly string[], io: Io): number {
  const p = parseArgs(argv, DOCTOR)
  const json = p.switches.has('--json')
  if (p.switches.has('--help')) return printHelp(DOCTOR, json, io)
  if (p.error !== undefined) return reportUsage(DOCTOR, new UsageError(p.error), json, io)
  let report
  try {
    report = doctor()
  } catch (err) {
    return reportError(DOCTOR.name, err, json, io, EXIT.internal)
  }
  if (json) {
    io.stdout(JSON.stringify(report, null, 2) + '\n')
  } else {
    io.stdout(`cordon doctor — ${report.platform} ${report.kernel}\n`)
    for (const c of report.checks) {
      io.stdout(`  ${c.warning ? 'WARN' : c.ok ? 'ok  ' : 'FAIL'}  ${c.mechanism.padEnd(22)} ${c.detail}\n`)
      if (c.fix) io.stdout(`        fix: ${c.fix}\n`)
    }
    // Each backend names its own modes (Linux: landlock, namespaces; macOS: seatbelt).
    const modes = Object.entries(report.modes).map(([m, ok]) => `${m} ${ok ? 'available' : 'unavailable'}`)
    io.stdout(`modes: ${modes.length ? modes.join(', ') : 'none (no backend for this platform)'}\n`)
  }
  return Object.values(report.modes).some(Boolean) ? 0 : 1
}
