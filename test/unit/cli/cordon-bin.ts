/** Spawn bin/cordon.js as a user would, in a scratch directory the tests share. */
import { execFile } from 'node:child_process'
import { makeTestTmpDir } from '../../helpers/paths.js'

export const bin = new URL('../../../bin/cordon.js', import.meta.url).pathname

export interface CliResult {
  code: number
  stdout: string
  stderr: string
}

/** A fresh directory under test/.tmp (visible in namespace mode too); the caller removes it. */
export function scratchDir(prefix: string): string {
  return makeTestTmpDir(prefix)
}

export function cordon(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd, env }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    )
  })
}
