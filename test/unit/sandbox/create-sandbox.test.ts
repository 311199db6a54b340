/**
 * createSandbox() and run() refuse bad input with a PolicyError before
 * anything is spawned, and a launcher failure surfaces as a SetupError
 * naming the step.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { createSandbox, PolicyError, SetupError } from '../../../src/index.js'
import { rejected } from '../../helpers/errors.js'

// Every sandboxed child is started by a request to the launcher zygote
// (Zygote.start): count those.
const spawned = vi.fn()
vi.mock('../../../src/platform/linux/launch/zygote.js', async (importOriginal) =>
  (await import('../../helpers/zygote-spy.js')).countingStarts(await importOriginal(), (...a) => spawned(...a)),
)

const dir = mkdtempSync(join(tmpdir(), 'cordon-create-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
beforeEach(() => {
  spawned.mockClear()
})

const policyError = (fn: () => unknown) => rejected(PolicyError, fn)

const base = { cwd: dir, mode: 'landlock', compat: 'best-effort' } as const

describe('createSandbox: bad options → PolicyError, nothing spawned', () => {
  it.each([
    ['an unknown mode', { ...base, mode: 'chroot' }, /mode/],
    ['an unknown option', { ...base, networking: 'off' }, /\(root\)|networking/],
    ['a bad network value', { ...base, network: 'maybe' }, /network/],
    ['a non-integer limit', { ...base, limits: { nofile: 1.5 } }, /limits\.nofile/],
  ])('%s', async (_, options, where) => {
    const e = await policyError(() => createSandbox(options as never))
    expect(e.where).toMatch(where)
    expect(spawned).not.toHaveBeenCalled()
  })

  it('a cwd that does not exist', async () => {
    const e = await policyError(() => createSandbox({ ...base, cwd: join(dir, 'missing') }))
    expect(e.where).toBe('cwd')
    expect(spawned).not.toHaveBeenCalled()
  })

  it('a cwd that is a file', async () => {
    const file = join(dir, 'a-file')
    writeFileSync(file, '')
    const e = await policyError(() => createSandbox({ ...base, cwd: file }))
    expect(e.message).toMatch(/not a directory/)
  })
})

describe('run: bad commands → PolicyError, nothing spawned', () => {
  const sb = createSandbox(base)
  afterAll(() => sb.close())

  it.each([
    ['an empty argv', [], /empty command/],
    ['an empty program name', [''], /empty program name/],
    ['a NUL byte in an argument', ['echo', 'a\0b'], /NUL/],
  ])('%s', async (_, argv, message) => {
    const e = await policyError(() => sb.run(argv))
    expect(e.where).toBe('command')
    expect(e.message).toMatch(message)
    expect(spawned).not.toHaveBeenCalled()
  })

  it('unknown run options', async () => {
    const e = await policyError(() => sb.run(['true'], { timeout: -5 }))
    expect(e.where).toMatch(/^run options: timeout/)
    expect(spawned).not.toHaveBeenCalled()
  })

  it.each([2 ** 31, Number.MAX_SAFE_INTEGER])('a timeout longer than a timer can wait (%d ms): PolicyError, not a kill after 1 ms', async (timeout) => {
    const e = await policyError(() => sb.run(['true'], { timeout }))
    expect(e.where).toBe('run options: timeout')
    expect(e.message).toMatch(/at most 2147483647 ms/)
    expect(spawned).not.toHaveBeenCalled()
  })

  it('a cwd removed after creation is caught before spawning (PolicyError, where cwd)', async () => {
    const gone = mkdtempSync(join(dir, 'gone-'))
    const sb2 = createSandbox({ ...base, cwd: gone })
    rmSync(gone, { recursive: true })
    const e = await policyError(() => sb2.run(['true']))
    expect(e.where).toBe('cwd')
    expect(spawned).not.toHaveBeenCalled()
    sb2.close()
  })
})

describe('run: launcher failures → SetupError naming the step', () => {
  it('a command that is not found → step execve, ENOENT', async () => {
    const sb = createSandbox(base)
    try {
      await sb.run(['cordon-no-such-program-x'])
      expect.unreachable()
    } catch (e) {
      expect(e).toBeInstanceOf(SetupError)
      expect(e).toMatchObject({ code: 'E_SETUP', step: 'execve', syscall: 'execve', errnoCode: 'ENOENT', errno: 2 })
      expect((e as SetupError).message).toContain('cordon-no-such-program-x')
    } finally {
      sb.close()
    }
    expect(spawned).toHaveBeenCalledTimes(1)
  })

  it('a path that is not executable → step execve, EACCES', async () => {
    const file = join(dir, 'not-executable')
    writeFileSync(file, '#!/bin/sh\n', { mode: 0o644 })
    const sb = createSandbox(base)
    await expect(sb.run([file])).rejects.toMatchObject({ name: 'SetupError', step: 'execve', errnoCode: 'EACCES' })
    sb.close()
  })
})
