/**
 * The declarations cordon ships, as a consumer meets them: `npm pack` the
 * package, install the tarball into a fresh project whose tsconfig has
 * `skipLibCheck: false` (every .d.ts is checked), and typecheck a file that
 * uses the public API. A declaration that imports a file missing from the
 * tarball is TS2307 there, and a value typed through it silently becomes
 * `any` where lib checks are skipped: both fail this test.
 *
 * Needs the npm registry or npm's cache for cordon's dependencies (CI has
 * the cache from `npm ci`), and a current dist/ (the global setup builds it).
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { repoRoot } from '../helpers/paths.js'

const CONSUMER = `
import { createSandbox, doctor, hardenProcess, SetupError, type Enforcement, type SandboxResult } from 'cordon'

type IsAny<T> = 0 extends 1 & T ? true : false
const hardening = hardenProcess()
export const hardeningIsTyped: IsAny<typeof hardening> = false
export const scrubbed: number = hardening.scrubbed
export const doctorIsTyped: IsAny<ReturnType<typeof doctor>> = false

const sandbox = createSandbox({ cwd: process.cwd(), mode: 'landlock' })
export const result: Promise<SandboxResult> = sandbox.run(['true'])
export const enforcementIsTyped: IsAny<Enforcement> = false
export const isSetupError = (e: unknown): e is SetupError => e instanceof SetupError
`

const TSCONFIG = {
  compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: false, noEmit: true, types: ['node'] },
  files: ['consumer.ts'],
}

/**
 * Third-party declaration errors a consumer would see through cordon's
 * declarations: none. (web-tree-sitter's own .d.ts names a global,
 * EmscriptenModule, it does not ship; cordon's public declarations no longer
 * import it — DecideOptions lives in exec-policy/types.ts.)
 */
const KNOWN_THIRD_PARTY: RegExp[] = []

let project: string
beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), 'cordon-consumer-'))
  // dist/ is current (global setup): no prepare script, no rebuild.
  const [packed] = JSON.parse(execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', project], { cwd: repoRoot, encoding: 'utf8' })) as { filename: string }[]
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'cordon-consumer', private: true, type: 'module' }))
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG))
  writeFileSync(join(project, 'consumer.ts'), CONSUMER)
  const typesNode = (JSON.parse(readFileSync(join(repoRoot, 'node_modules/@types/node/package.json'), 'utf8')) as { version: string }).version
  const install = ['install', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', `./${packed!.filename}`, `@types/node@${typesNode}`]
  execFileSync('npm', install, { cwd: project, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
}, 240_000)
afterAll(() => rmSync(project, { recursive: true, force: true }))

describe('the packed package, for a TypeScript consumer with skipLibCheck: false', () => {
  it('ships a declaration for every module its declarations import, and types the API (no any)', () => {
    let output = ''
    try {
      execFileSync(process.execPath, [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', '.'], { cwd: project, encoding: 'utf8' })
    } catch (e) {
      output = (e as { stdout: string }).stdout
    }
    const errors = output.split('\n').filter((l) => / error TS\d+:/.test(l))
    const known = errors.filter((l) => KNOWN_THIRD_PARTY.some((re) => re.test(l)))
    if (known.length) console.log(`known third-party declaration errors (not cordon's files):\n${known.join('\n')}`)
    expect(errors.filter((l) => !known.includes(l))).toEqual([])
  }, 180_000)
})
