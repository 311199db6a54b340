/**
 * A per-run `cwd` (issue 11): the command starts there, and nothing else
 * changes — the profile stays resolved against the sandbox cwd, so the
 * write roots are the sandbox's. It must be an existing directory in the
 * sandbox's readable tree, checked with the profile's canonicalisation
 * (a symlink planted inside a write root is refused); otherwise a
 * PolicyError and nothing is spawned.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { createSandbox, PolicyError, type SandboxOptions } from '../../../src/index.js'
import { rejected } from '../../helpers/errors.js'
import { makeTestTmpDir } from '../../helpers/paths.js'

const spawned = vi.fn()
vi.mock('../../../src/platform/linux/launch/zygote.js', async (importOriginal) =>
  (await import('../../helpers/zygote-spy.js')).countingStarts(await importOriginal(), (...a) => spawned(...a)),
)

// Under test/.tmp, not /tmp: namespace mode shows /tmp private and empty.
const root = makeTestTmpDir('run-cwd-')
const ws = join(root, 'ws')
const sub = join(ws, 'sub')
const elsewhere = join(root, 'elsewhere')
const secret = join(root, 'secret')
for (const d of [sub, elsewhere, secret]) mkdirSync(d, { recursive: true })
writeFileSync(join(ws, 'a-file'), '')
afterAll(() => rmSync(root, { recursive: true, force: true }))
beforeEach(() => spawned.mockClear())

const base: SandboxOptions = { cwd: ws, mode: 'landlock', compat: 'best-effort', denyRead: [secret] }

describe('run(argv, { cwd })', () => {
  it('starts the command there: absolute, or relative to the sandbox cwd', async () => {
    const sb = createSandbox(base)
    const [abs, rel, outside] = await Promise.all([sb.run(['pwd'], { cwd: sub }), sb.run(['pwd'], { cwd: 'sub' }), sb.spawn('pwd', [], { cwd: elsewhere })])
    sb.close()
    expect(abs.stdout).toBe(`${sub}\n`)
    expect(rel.stdout).toBe(`${sub}\n`)
    expect(outside.stdout).toBe(`${elsewhere}\n`)
  })

  it('widens nothing: the write roots stay the sandbox’s (a cwd outside them stays read-only)', async () => {
    const sb = createSandbox(base)
    const r = await sb.run(['sh', '-c', 'echo x > here && echo wrote || echo denied'], { cwd: elsewhere })
    const inWs = await sb.run(['sh', '-c', 'echo x > here && echo wrote || echo denied'], { cwd: sub })
    sb.close()
    expect(r.stdout).toBe('denied\n')
    expect(r.enforcement.filesystem.writeRoots).not.toContain(elsewhere)
    expect(r.enforcement.filesystem.writeRoots).toEqual(inWs.enforcement.filesystem.writeRoots)
    expect(inWs.stdout).toBe('wrote\n')
  })

  it('also in namespace mode, where it must stay visible', async () => {
    const sb = createSandbox({ ...base, mode: 'namespaces' })
    const mode = sb.report().mode
    if (mode !== 'namespaces') console.warn(`[run-cwd test] namespace mode unavailable here: ran ${mode}`)
    const r = await sb.run(['pwd'], { cwd: elsewhere })
    sb.close()
    expect(r.stdout).toBe(`${elsewhere}\n`)
  })
})

describe('a bad cwd → PolicyError, nothing spawned', () => {
  const refused = async (cwd: string, message: RegExp, options: Record<string, unknown> = {}) => {
    const sb = createSandbox({ ...base, ...options })
    try {
      const e = await rejected(PolicyError, () => sb.run(['pwd'], { cwd }))
      expect(e.where).toMatch(/cwd/)
      expect(e.message).toMatch(message)
      expect(spawned).not.toHaveBeenCalled()
    } finally {
      sb.close()
    }
  }

  it('missing', () => refused(join(ws, 'missing'), /does not exist/))
  it('a file', () => refused(join(ws, 'a-file'), /not a directory/))
  it('inside a denied path', () => refused(secret, /denies reading/))
  it('outside the readable tree', () => refused(elsewhere, /outside the sandbox's readable tree/, { profile: { filesystem: { read: [ws], write: ['${cwd}'] } } }))

  it('through a symlink planted inside a write root', async () => {
    symlinkSync(elsewhere, join(ws, 'planted'))
    await refused(join(ws, 'planted'), /symlink/)
  })

  it('in namespace mode, under a private directory the command cannot see', async () => {
    const sb = createSandbox({ ...base, mode: 'namespaces' })
    const e = sb.report()
    sb.close()
    if (e.mode !== 'namespaces' || !e.filesystem.privateDirs.includes('/tmp')) return console.warn('[run-cwd test] skipped: namespace mode with a private /tmp is unavailable here')
    const hidden = mkdtempSync('/tmp/cordon-run-cwd-')
    try {
      await refused(hidden, /private, empty directory/, { mode: 'namespaces' })
    } finally {
      rmSync(hidden, { recursive: true, force: true })
    }
  })

  it('an already aborted run checks it too', async () => {
    const sb = createSandbox(base)
    await rejected(PolicyError, () => sb.run(['pwd'], { cwd: join(ws, 'missing'), signal: AbortSignal.abort() }))
    sb.close()
  })
})
