/**
 * Usage errors, --help and --json errors, across every subcommand, through
 * bin/cordon.js: a usage error exits 64 (EX_USAGE; docs/cli.md says why) and
 * runs nothing, --help exits 0 and names every flag, and with --json every
 * error — usage or setup — is one JSON document on stdout (the reason stays
 * on stderr too).
 */
import { execFile } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { repoRoot } from '../../helpers/paths.js'
import { cordon as cordonIn, scratchDir, type CliResult } from './cordon-bin.js'

const USAGE = 64
const work = scratchDir('cli-usage-')
afterAll(() => rmSync(work, { recursive: true, force: true }))
const cordon = (args: string[]): Promise<CliResult> => cordonIn(args, work)
/** A test title: the arguments, with the scratch and fixture paths shortened. */
const title = (args: readonly string[]): readonly [string, readonly string[]] => [args.join(' ').replaceAll(work, '$TMP').replaceAll(rules, 'default.rules') || '(nothing)', args]

const rules = fileURLToPath(new URL('../exec-policy/rules/fixtures/default.rules', import.meta.url))
const marker = join(work, 'must-not-exist')
const touch = ['--', 'touch', marker]
afterEach(() => rmSync(marker, { force: true }))

const RUN_FLAGS = ['--profile', '--read', '--write', '--deny-read', '--network', '--allow-host', '--deny-host', '--mode', '--compat', '--cwd', '--timeout', '--json', '--help', '-h']
const FLAGS: Record<string, string[]> = {
  run: RUN_FLAGS,
  explain: RUN_FLAGS,
  doctor: ['--json', '--help', '-h'],
  check: ['--rules', '--json', '--help', '-h'],
}

describe('usage errors exit 64 in every subcommand, say why on stderr and run nothing', () => {
  it.each([
    ['run', '--frobnicate', ...touch],
    ['run'],
    ['run', '--'],
    ['run', '--mode', 'bogus', ...touch],
    ['run', '--network', 'maybe', ...touch],
    ['run', '--allow-host', '*', ...touch],
    ['run', '--allow-host', 'https://registry.npmjs.org/', ...touch],
    ['run', '--deny-host', 'a.*.example.com', ...touch],
    ['run', '--allow-host', 'registry.npmjs.org', '--network', 'on', ...touch],
    ['explain', '--allow-host', '*'],
    ['run', '--compat', 'soft', ...touch],
    ['run', '--timeout', 'soon', ...touch],
    ['run', '--timeout', '0', ...touch],
    ['run', '--cwd'],
    ['run', '--cwd', '.', '--cwd', '.', ...touch],
    ['run', '--read=', ...touch],
    ['run', '--json=yes', ...touch],
    ['explain', '--frobnicate'],
    ['explain', '--mode', 'bogus'],
    ['explain', ...touch],
    ['doctor', '--frobnicate'],
    ['doctor', 'extra'],
    ['check', '--frobnicate', '--rules', rules, '--', 'ls'],
    ['check', '--rules', rules],
    [],
    ['frobnicate'],
    ['help', 'frobnicate'],
  ].map(title))('cordon %s', async (_, args) => {
    const r = await cordon([...args])
    expect(r.code).toBe(USAGE)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(/^cordon( [a-z]+)?: \S.*\n/)
    expect(r.stderr).toContain('usage: cordon')
    expect(existsSync(marker)).toBe(false)
  })
})

describe('--help exits 0 and prints every flag of the subcommand', () => {
  it.each([
    ['run', '--help'],
    ['run', '-h'],
    ['help', 'run'],
    ['run', '--read', '/usr', '--help'],
    ['run', '--frobnicate', '--help'],
    ['explain', '--help'],
    ['help', 'explain'],
    ['doctor', '--help'],
    ['doctor', '-h'],
    ['check', '--help'],
    ['help', 'check'],
  ].map(title))('cordon %s', async (_, args) => {
    const sub = args[0] === 'help' ? args[1]! : args[0]!
    const r = await cordon([...args])
    expect(r.code).toBe(0)
    expect(r.stderr).toBe('')
    expect(r.stdout).toContain(`usage: cordon ${sub}`)
    for (const flag of FLAGS[sub]!) expect(r.stdout).toMatch(new RegExp(`(^|[\\s,\\[])${flag}\\b`, 'm'))
  })

  it.each([['help'], ['--help'], ['-h']])('cordon %s: every subcommand and every flag', async (arg) => {
    const r = await cordon([arg])
    expect(r.code).toBe(0)
    expect(r.stderr).toBe('')
    for (const [sub, flags] of Object.entries(FLAGS)) {
      expect(r.stdout).toMatch(new RegExp(`^ +cordon ${sub} `, 'm'))
      for (const flag of flags) expect(r.stdout).toContain(flag)
    }
  })

  it('after the command, --help belongs to the command', async () => {
    const r = await cordon(['run', '--', 'sh', '-c', 'echo "args: $*"', 'sh', '--help'])
    expect(r).toMatchObject({ code: 0, stdout: 'args: --help\n' })
    const bare = await cordon(['run', 'echo', '-h'])
    expect(bare).toMatchObject({ code: 0, stdout: '-h\n' })
  })

  it('--help --json prints the flag table as JSON', async () => {
    const r = await cordon(['run', '--help', '--json'])
    expect(r.code).toBe(0)
    const help = JSON.parse(r.stdout) as { command: string; usage: string; flags: { name: string; description: string }[] }
    expect(help.command).toBe('run')
    expect(help.flags.map((f) => f.name)).toEqual(expect.arrayContaining(RUN_FLAGS.filter((f) => f !== '-h')))
    for (const f of help.flags) expect(f.description).not.toBe('')
  })
})

interface JsonError {
  error: { name: string; code: string; message: string; where?: string; step?: string; errnoCode?: string }
}

function jsonError(r: CliResult): JsonError['error'] {
  const out = JSON.parse(r.stdout) as JsonError
  expect(Object.keys(out)).toEqual(['error'])
  return out.error
}

describe('with --json, an error is one JSON document on stdout (and the reason on stderr)', () => {
  it.each([
    ['run', '--json', '--frobnicate', '--', 'true'],
    ['run', '--frobnicate', '--json', '--', 'true'],
    ['run', '--json'],
    ['run', '--json', '--timeout', 'soon', '--', 'true'],
    ['explain', '--json', '--frobnicate'],
    ['doctor', '--json', '--frobnicate'],
    ['check', '--json', '--rules', rules],
    ['frobnicate', '--json'],
  ].map(title))('usage: cordon %s', async (_, args) => {
    const r = await cordon([...args])
    expect(r.code).toBe(USAGE)
    expect(jsonError(r)).toMatchObject({ name: 'UsageError', code: 'E_POLICY', where: 'command line', message: expect.stringMatching(/^command line: \S/) })
    expect(r.stderr).toMatch(/^cordon( [a-z]+)?: command line: /)
  })

  it('setup: a bad profile exits 125 with the PolicyError as JSON', async () => {
    for (const sub of ['run', 'explain']) {
      const r = await cordon([sub, '--json', '--profile', 'no-such-profile', ...(sub === 'run' ? ['--', 'true'] : [])])
      expect(r.code, sub).toBe(125)
      expect(jsonError(r)).toMatchObject({ name: 'PolicyError', code: 'E_POLICY', where: 'profile', message: expect.stringContaining("unknown profile 'no-such-profile'") })
      expect(r.stderr).toContain("unknown profile 'no-such-profile'")
    }
  })

  it('not found: exits 127 with the SetupError as JSON', async () => {
    const r = await cordon(['run', '--json', '--', 'cordon-no-such-program'])
    expect(r.code).toBe(127)
    expect(jsonError(r)).toMatchObject({ name: 'SetupError', code: 'E_SETUP', step: 'execve', errnoCode: 'ENOENT' })
  })

  it('a run bundle that fails to load: exit 125, the error as JSON', async () => {
    // A copy of the package's entry with a broken dist/cli-bundle/run.cjs beside it.
    const pkg = join(work, 'broken-pkg')
    mkdirSync(join(pkg, 'bin'), { recursive: true })
    mkdirSync(join(pkg, 'dist', 'cli-bundle'), { recursive: true })
    for (const f of ['bin/cordon.js', 'bin/package.json', 'dist/cli-bundle/cli.cjs']) copyFileSync(join(repoRoot, f), join(pkg, f))
    writeFileSync(join(pkg, 'dist', 'cli-bundle', 'run.cjs'), "throw new Error('cordon test: broken bundle')\n")
    const r = await new Promise<CliResult>((resolve) =>
      execFile(process.execPath, [join(pkg, 'bin', 'cordon.js'), 'run', '--json', '--', 'true'], (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr })),
    )
    expect(r.code).toBe(125)
    expect(jsonError(r)).toEqual({ name: 'Error', code: 'E_INTERNAL', message: 'cordon test: broken bundle' })
    expect(r.stderr).toBe('cordon run: cordon test: broken bundle\n')
  })
})
