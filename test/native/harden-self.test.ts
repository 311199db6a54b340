/**
 * hardenSelf() and hardenProcess() change the whole calling process, so they
 * run in a spawned Node child (never in the test process). The child runs as
 * the unprivileged identity when there is one, so that the non-dumpable
 * state is observable: /proc/self files become root-owned (proc(5)).
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { identities } from '../helpers/identity.js'
import { repoRoot } from '../helpers/paths.js'
import { host, itWhere } from '../helpers/requirements.js'

const unprivileged = identities().find((i) => i.name === 'unprivileged' && !i.missing)
/** The deny-call fixture is a C program. */
const noCompiler = host().compiler
const dist = (p: string) => pathToFileURL(join(repoRoot, 'dist', p)).href

const CHILD = `
import { readFileSync, statSync } from 'node:fs'
import { loadNative } from '${dist('native/load.js')}'
import { hardenProcess } from '${dist('harden.js')}'
const owner = () => statSync('/proc/self/status').uid
const out = { before: owner() }
try {
  out.hardening = process.argv.includes('--api') ? hardenProcess() : loadNative().binding.hardenSelf()
} catch (e) {
  out.error = { name: e.name, message: e.message, code: e.code, errno: e.errno, syscall: e.syscall, step: e.step, errnoCode: e.errnoCode }
}
out.after = owner()
out.core = readFileSync('/proc/self/limits', 'utf8').split('\\n').find((l) => l.startsWith('Max core file size')).split(/\\s{2,}/).slice(1, 3)
out.ld = Object.keys(process.env).filter((k) => k.startsWith('LD_'))
console.log(JSON.stringify(out))
`

interface ChildReport {
  before: number
  after: number
  hardening?: { dumpableOff: boolean; coreZero: boolean; scrubbed: number }
  error?: Record<string, unknown>
  core: [string, string]
  ld: string[]
}

let fixtures: string
beforeAll(() => {
  fixtures = mkdtempSync(join(tmpdir(), 'cordon-native-'))
  if (!noCompiler) execFileSync('cc', ['-O1', '-Wall', '-o', join(fixtures, 'deny-call'), join(repoRoot, 'test/native/fixtures/deny-call.c')])
})
afterAll(() => rmSync(fixtures, { recursive: true, force: true }))

function runChild(opts: { api?: boolean; denyDumpable?: boolean } = {}): ChildReport {
  const node = [process.execPath, '--input-type=module', '-e', CHILD, '--', ...(opts.api ? ['--api'] : [])]
  const argv = opts.denyDumpable ? [join(fixtures, 'deny-call'), 'dumpable', ...node] : node
  const [file, ...args] = unprivileged ? unprivileged.wrap(argv) : argv
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', LD_LIBRARY_PATH: '/nonexistent-cordon', LD_CORDON_TEST: '1' }
  const r = spawnSync(file!, args, { env, encoding: 'utf8', timeout: 20_000 })
  expect(r.status, r.stderr).toBe(0)
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as ChildReport
}

describe('hardenSelf() in a spawned child', () => {
  it('turns dumpable off, sets RLIMIT_CORE to 0 and scrubs LD_ variables', () => {
    const r = runChild()
    expect(r.error).toBeUndefined()
    expect(r.hardening).toEqual({ dumpableOff: true, coreZero: true, scrubbed: 2 })
    expect(r.core).toEqual(['0', '0'])
    expect(r.ld).toEqual([])
    if (unprivileged) expect([r.before, r.after]).toEqual([unprivileged.uid, 0])
  })

  itWhere(noCompiler, 'a failed step throws an error carrying code, errno, syscall and step', () => {
    const r = runChild({ denyDumpable: true })
    expect(r.hardening).toBeUndefined()
    expect(r.error).toMatchObject({ code: 'EPERM', errno: 1, syscall: 'prctl(PR_SET_DUMPABLE)', step: 'harden' })
    expect(r.error!.message).toMatch(/harden: prctl\(PR_SET_DUMPABLE\)/)
  })
})

describe('hardenProcess() (the public wrapper) in a spawned child', () => {
  it('returns the same report', () => {
    expect(runChild({ api: true }).hardening).toEqual({ dumpableOff: true, coreZero: true, scrubbed: 2 })
  })

  itWhere(noCompiler, 'maps a native failure to a SetupError naming step and syscall', () => {
    const r = runChild({ api: true, denyDumpable: true })
    expect(r.error).toMatchObject({ name: 'SetupError', code: 'E_SETUP', step: 'harden', syscall: 'prctl(PR_SET_DUMPABLE)', errnoCode: 'EPERM', errno: 1 })
  })
})
