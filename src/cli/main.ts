/** The cordon CLI entry: dispatch to one subcommand, loaded lazily (startup time matters). */
import { processIo, type Io } from './io.js'

const USAGE = `usage: cordon <command>
  run [options] -- CMD ARGS...   run a command confined (default: workspace-write on the cwd, network off)
  doctor [--json]                what this host can enforce, and how to fix what it cannot
  explain [run options]          what a profile would enforce here, without running anything
  check --rules FILE... [--json] -- CMD...   exec-policy decision for a command
`

export async function main(argv: readonly string[], io: Io = processIo): Promise<number> {
  const [cmd, ...rest] = argv
  try {
    switch (cmd) {
      case 'run':
        return await (await import('./run.js')).runCommand(rest, io)
      case 'doctor':
        return (await import('./doctor.js')).doctorCommand(rest, io)
      case 'explain':
        return (await import('./explain.js')).explainCommand(rest, io)
      case 'check':
        return await (await import('./check.js')).runCheck([...rest], io)
      case undefined:
      case '-h':
      case '--help':
      case 'help':
        io.stdout(USAGE)
        return cmd === undefined ? 64 : 0
      default:
        io.stderr(`cordon: unknown command '${cmd}'\n${USAGE}`)
        return 64
    }
  } catch (err) {
    io.stderr(`cordon: ${(err as Error).message}\n`)
    return 125
  }
}
