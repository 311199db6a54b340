/**
 * Windows command lines. A Windows process gets ONE string, and each
 * program splits it itself; the Microsoft C runtime and
 * CommandLineToArgvW split it the same way for everything this quoting
 * produces (MSDN, "Parsing C++ command-line arguments"):
 *
 * - arguments are separated by spaces and tabs, outside double quotes;
 * - 2n backslashes before a `"` are n backslashes, and the `"` opens or
 *   closes a quoted part; 2n+1 backslashes before a `"` are n backslashes
 *   and a literal `"`;
 * - backslashes not before a `"` are literal.
 *
 * The program name (argv[0]) is read by other rules — up to the first
 * space, or between the first two `"`, no escapes — so it is quoted only
 * when it needs to be, and refused when it holds a `"` (no Windows file
 * name can). Batch files are refused: cmd.exe re-parses the line by rules
 * of its own (`%`, `^`, `&`), and no quoting makes an argument safe there
 * (CVE-2024-27980, "BatBadBut").
 */
import { PolicyError } from '../../errors.js'

const NEEDS_QUOTES = /[ \t\n\v"]/

/** One argument, quoted so that CommandLineToArgvW gives it back unchanged. */
export function quoteArg(arg: string): string {
  if (arg.length > 0 && !NEEDS_QUOTES.test(arg)) return arg
  let out = '"'
  let slashes = 0
  for (const ch of arg) {
    if (ch === '\\') {
      slashes++
      continue
    }
    // Backslashes before a quote are doubled, and the quote escaped; before anything else they stay as they are.
    out += ch === '"' ? '\\'.repeat(slashes * 2 + 1) + '"' : '\\'.repeat(slashes) + ch
    slashes = 0
  }
  // Before the closing quote, backslashes are doubled so that it still closes.
  return out + '\\'.repeat(slashes * 2) + '"'
}

function quoteProgram(name: string): string {
  if (name.includes('"')) throw new PolicyError(`program name ${JSON.stringify(name)} contains a double quote, which no Windows file name can`, { where: 'argv[0]' })
  return name.length > 0 && !/[ \t]/.test(name) ? name : `"${name}"`
}

/** The whole command line for `argv`; a NUL anywhere is refused (it would end the string early). */
export function commandLine(argv: readonly string[]): string {
  if (argv.length === 0) throw new PolicyError('empty argv', { where: 'argv' })
  if (argv.some((a) => a.includes('\0'))) throw new PolicyError('an argument contains a NUL character, which a Windows command line cannot carry', { where: 'argv' })
  return [quoteProgram(argv[0]!), ...argv.slice(1).map(quoteArg)].join(' ')
}

/** cmd.exe runs these, re-parsing the command line by its own rules. */
export function isBatchFile(path: string): boolean {
  return /\.(bat|cmd)$/i.test(path)
}
