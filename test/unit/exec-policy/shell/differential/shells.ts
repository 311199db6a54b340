/**
 * Running a script under a real shell and recording what it executed.
 *
 * PATH holds only a directory of stub programs (generate.ts STUBS). Each stub
 * writes its argv — argument count, program name, arguments, each followed by
 * NUL — to a file of its own (its pid), so pipeline members running at once
 * cannot interleave their records, and exits 0 (`no` exits 1). The script
 * runs in a fresh directory holding FIXTURES; files it creates there are
 * reported too, so a misread redirection target shows.
 */
import { spawn } from 'node:child_process'
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { removeTree, tempDir } from '../../../../helpers/temp.js'
import { FIXTURES, STUBS } from './generate.js'

export interface Shell {
  readonly name: string
  /** argv before the script: e.g. ['bash', '-c']. */
  readonly argv: readonly string[]
}

/**
 * The shells cordon unwraps, where installed. zsh runs without its rc files
 * (the user's own configuration is out of scope) and with `nonomatch`: by
 * default a glob that matches nothing is an error there and the command does
 * not run — less than the splitter predicts, never something else.
 */
export const CANDIDATE_SHELLS: readonly Shell[] = [
  { name: 'bash', argv: ['/bin/bash', '-c'] },
  { name: 'dash', argv: ['/bin/dash', '-c'] },
  { name: 'busybox sh', argv: ['/bin/busybox', 'sh', '-c'] },
  { name: 'zsh', argv: ['/bin/zsh', '-f', '-o', 'nonomatch', '-c'] },
  { name: 'mksh', argv: ['/bin/mksh', '-c'] },
]

export interface Run {
  /** Every stub execution: [name, ...args]. */
  readonly executed: string[][]
  /** Files present afterwards that were not fixtures. */
  readonly created: string[]
  readonly stderr: string
  readonly status: number | null
}

export class StubWorld {
  readonly root = tempDir('cordon-diff-')
  readonly bin = join(this.root, 'bin')
  private n = 0
  private readonly stubs = new Set<string>()

  constructor() {
    mkdirSync(this.bin)
    this.addStubs(STUBS)
  }

  /** Stubs for these program names too (every program the splitter expects must exist, or the shell's "not found" would show). */
  addStubs(names: readonly string[]): void {
    for (const name of names) {
      if (this.stubs.has(name) || name === '' || name === '.' || name === '..' || name.includes('/')) continue
      const stub = join(this.bin, name)
      const status = name === 'no' ? 1 : 0
      // dash for speed; printf is its builtin (PATH has nothing else).
      writeFileSync(stub, `#!/bin/dash\nprintf '%s\\0' "$#" "\${0##*/}" "$@" > "$STUB_LOG/$$"\nexit ${status}\n`)
      chmodSync(stub, 0o755)
      this.stubs.add(name)
    }
  }

  async run(shell: Shell, script: string): Promise<Run> {
    const dir = join(this.root, `run${this.n++}`)
    const cwd = join(dir, 'cwd')
    const log = join(dir, 'log')
    mkdirSync(cwd, { recursive: true })
    mkdirSync(log)
    for (const f of FIXTURES) writeFileSync(join(cwd, f), 'x\n')
    const [cmd, ...args] = shell.argv as [string, ...string[]]
    // HOME is the working directory: a generated `cd` ("c\\<newline>d") with no argument stays there.
    const env = { PATH: this.bin, STUB_LOG: log, HOME: cwd, LC_ALL: 'C.UTF-8' }
    const { stderr, status } = await spawnCollect(cmd, [...args, script], cwd, env)
    const executed = readdirSync(log).map((f) => parseRecord(readFileSync(join(log, f), 'utf8')))
    const created = readdirSync(cwd).filter((f) => !FIXTURES.includes(f))
    rmSync(dir, { recursive: true, force: true })
    return { executed, created, stderr, status }
  }

  close(): void {
    removeTree(this.root)
  }
}

function parseRecord(text: string): string[] {
  const fields = text.split('\0')
  const count = Number(fields[0])
  return fields.slice(1, count + 2)
}

function spawnCollect(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ stderr: string; status: number | null }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000 })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    child.on('error', (err) => resolve({ stderr: String(err), status: null }))
    child.on('close', (status) => resolve({ stderr, status }))
  })
}
