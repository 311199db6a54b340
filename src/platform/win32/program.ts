/**
 * Which file a Windows command runs. CreateProcess, given no application
 * name, searches the launcher's own directory and the CURRENT directory
 * before PATH (MSDN, CreateProcessW, lpCommandLine): a file planted in the
 * workspace named like a tool (`git.exe`) would run instead of the real
 * one. So cordon resolves the program here — an explicit path as given,
 * a bare name through the command's own PATH and PATHEXT only — and the
 * launcher gets the absolute file as lpApplicationName, which is never
 * searched.
 */
import { statSync } from 'node:fs'
import { win32 } from 'node:path'
import { UnsupportedError } from '../../errors.js'
import { isBatchFile } from './command-line.js'

const DEFAULT_PATHEXT = '.COM;.EXE;.BAT;.CMD'

export interface ProgramLookup {
  cwd: string
  /** The command's environment (case-insensitive names, as Windows has them). */
  env: Readonly<Record<string, string>>
  isFile?: (path: string) => boolean
}

function envValue(env: Readonly<Record<string, string>>, name: string): string | undefined {
  const key = Object.keys(env).find((k) => k.toUpperCase() === name)
  return key === undefined ? undefined : env[key]
}

const fileExists = (p: string): boolean => {
  try {
    return statSync(p).isFile()
  } catch {
    return false
  }
}

/** `base` as given when it has an extension, then with each PATHEXT extension. */
function candidates(base: string, exts: readonly string[]): string[] {
  const own = win32.extname(base) !== '' ? [base] : []
  return [...own, ...exts.map((x) => base + x)]
}

/** The absolute file `name` runs, or undefined when there is none. Batch files are refused. */
export function resolveProgram(name: string, opts: ProgramLookup): string | undefined {
  const isFile = opts.isFile ?? fileExists
  const exts = (envValue(opts.env, 'PATHEXT') ?? DEFAULT_PATHEXT).split(';').filter((x) => x.startsWith('.'))
  const explicit = /[\\/]/.test(name) || win32.isAbsolute(name)
  const dirs = explicit ? [opts.cwd] : (envValue(opts.env, 'PATH') ?? '').split(';').filter((d) => win32.isAbsolute(d))
  for (const dir of dirs) {
    for (const file of candidates(win32.resolve(dir, name), exts)) {
      if (!isFile(file)) continue
      if (isBatchFile(file)) {
        throw new UnsupportedError('batch files', 'a program (.exe, .com)', file, 'cmd.exe re-parses a batch file\'s arguments by rules no quoting makes safe (CVE-2024-27980): run `cmd.exe /d /c` yourself with arguments you control')
      }
      return file
    }
  }
  return undefined
}
