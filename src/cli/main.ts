/** The cordon CLI entry: dispatch to one subcommand, loaded lazily (startup time matters). */
import { UsageError } from './args.js'
import { COMMANDS, EXIT } from './flags.js'
import { helpJson, plain, printHelp, synopsis, wrap } from './help.js'
import { processIo, type Io } from './io.js'
import { reportError, reportUsage } from './report.js'

/** `cordon help`: every subcommand with every flag of it (here, not in help.ts: `cordon run` needs only its own table). */
function overview(json: boolean, io: Io): number {
  if (json) {
    io.stdout(`${JSON.stringify({ usage: 'cordon <command> [options]', commands: COMMANDS.map(helpJson) }, null, 2)}\n`)
    return 0
  }
  const lines = ['usage: cordon <command> [options]', '', 'commands:']
  for (const spec of COMMANDS) lines.push(...wrap(synopsis(spec), 100, '      ', '  '), ...wrap(plain(spec.summary), 100, '      '), '')
  lines.push("'cordon <command> --help' (or 'cordon help <command>') describes each flag and exit status.", 'More: docs/cli.md', '')
  io.stdout(lines.join('\n'))
  return 0
}

/** `--json` among the options (before `--`): a usage error of `cordon` itself is JSON then too. */
function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--')
  return (end < 0 ? argv : argv.slice(0, end)).includes('--json')
}

/** `cordon help [COMMAND] [--json]` */
function help(argv: readonly string[], io: Io): number {
  const json = argv.includes('--json')
  const words = argv.filter((a) => a !== '--json')
  const spec = COMMANDS.find((c) => c.name === words[0])
  if (words.length > 1 || (words.length === 1 && !spec)) {
    return reportUsage(undefined, new UsageError(`unknown help topic '${words.join(' ')}' (commands: ${COMMANDS.map((c) => c.name).join(', ')})`), json, io)
  }
  return spec ? printHelp(spec, json, io) : overview(json, io)
}

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
        return await (await import('./check.js')).runCheck(rest, io)
      case 'help':
        return help(rest, io)
      case '-h':
      case '--help':
        return overview(wantsJson(rest), io)
      case undefined:
        return reportUsage(undefined, new UsageError('no command given'), false, io)
      default:
        return reportUsage(undefined, new UsageError(`unknown command '${cmd}'`), wantsJson(argv), io)
    }
  } catch (err) {
    // Only what the subcommands do not report themselves: e.g. a chunk of the bundle that fails to load.
    return reportError(cmd, err, wantsJson(rest), io, EXIT.setup)
  }
}
