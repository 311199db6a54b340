/**
 * How a subcommand reports a failure. The reason goes to stderr as one line
 * (`cordon run: …`), always; with `--json`, the error also goes to stdout as
 * one JSON document, `{ "error": { name, code, message, … } }`, so that a
 * caller that parses stdout gets JSON whatever happened (docs/cli.md).
 */
import { CordonError, type CordonErrorCode } from '../errors.js'
import { UsageError } from './args.js'
import { EXIT, type CommandSpec } from './flags.js'
import { usageLine } from './help.js'
import type { Io } from './io.js'

/**
 * The class names, by code: the CLI bundles are minified, so `err.name`
 * (set from the class) is not the name of the class there.
 */
const NAMES: Record<CordonErrorCode, string> = {
  E_POLICY: 'PolicyError',
  E_UNSUPPORTED: 'UnsupportedError',
  E_SETUP: 'SetupError',
  E_SANDBOX_DENIED: 'SandboxDeniedError',
  E_LOAD: 'LoadError',
  E_ABORTED: 'AbortError',
  E_FORBIDDEN: 'ForbiddenError',
  E_TOOL_CONTRACT: 'ToolContractError',
  E_TOOL_SETUP: 'ToolSetupError',
}

/** An error as plain data: its class name, code, message and the fields of its class (`where`, `step`, …). */
export function serializeError(err: unknown): Record<string, unknown> {
  if (!(err instanceof CordonError)) return { name: 'Error', code: 'E_INTERNAL', message: String((err as Error)?.message ?? err) }
  const { name: _minified, ...fields } = err as CordonError & Record<string, unknown>
  return { name: err instanceof UsageError ? err.name : NAMES[err.code], ...fields, message: err.message }
}

/** Report `err` of `cordon <command>` (of `cordon` itself without one) and return `status`. */
export function reportError(command: string | undefined, err: unknown, json: boolean, io: Io, status: number): number {
  if (json) io.stdout(`${JSON.stringify({ error: serializeError(err) }, null, 2)}\n`)
  io.stderr(`cordon${command ? ` ${command}` : ''}: ${err instanceof Error ? err.message : String(err)}\n`)
  return status
}

/** Report a usage error of a subcommand (of `cordon` itself without one), with the usage line; exit status 64. */
export function reportUsage(spec: CommandSpec | undefined, err: UsageError, json: boolean, io: Io): number {
  reportError(spec?.name, err, json, io, EXIT.usage)
  const help = spec ? `cordon ${spec.name} --help` : 'cordon help'
  io.stderr(`usage: ${spec ? usageLine(spec) : 'cordon <command> [options]'}\n'${help}' lists every ${spec ? 'flag' : 'command and flag'}.\n`)
  return EXIT.usage
}
