/** `cordon explain [run options]`: the enforcement report for a profile here, without running anything. */
import { createSandbox } from '../sandbox/sandbox.js'
import type { PlatformEnforcement } from '../platform/enforcement.js'
import type { Io } from './io.js'
import { optionsFromArgs } from './run.js'

/** The backend's own facts, one line. */
function platformLine(p: PlatformEnforcement): string {
  switch (p.os) {
    case 'linux':
      return `landlock ABI: ${p.landlockAbi ?? 'none'}; seccomp: ${p.seccomp}`
  }
}

export function explainCommand(argv: readonly string[], io: Io): number {
  const { options, json } = optionsFromArgs([...argv, '--', 'true'])
  const sb = createSandbox(options)
  try {
    const e = sb.report()
    if (json) {
      io.stdout(JSON.stringify(e, null, 2) + '\n')
      return 0
    }
    io.stdout(`mode: ${e.mode} (${e.modeReason})\nstatus: ${e.status}\n`)
    io.stdout(`${platformLine(e.platform)}; network: ${e.network}\n`)
    io.stdout(`read: ${e.filesystem.readAll ? 'all' : e.filesystem.readRoots.join(', ')}\nwrite: ${e.filesystem.writeRoots.join(', ')}\n`)
    io.stdout(`deny read: ${e.filesystem.denyRead.join(', ') || '(none)'}\nprotected: ${e.filesystem.protected.join(', ') || '(none)'}\n`)
    for (const m of e.missing) io.stdout(`missing: ${m.protection} — ${m.reason}${m.fix ? ` (fix: ${m.fix})` : ''}\n`)
    for (const n of e.notes) io.stdout(`note: ${n}\n`)
    return 0
  } finally {
    sb.close()
  }
}
