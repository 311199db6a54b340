/**
 * The error hierarchy: every class carries its own name as a fixed string
 * (not the class's, which a minifier renames), defined like a built-in
 * error's name (not enumerable), and JSON of an error keeps it.
 */
import { describe, expect, it } from 'vitest'
import {
  AbortError,
  CordonError,
  ForbiddenError,
  LoadError,
  PolicyError,
  SandboxDeniedError,
  SetupError,
  UnsupportedError,
} from '../../src/errors.js'

const examples: [string, () => CordonError][] = [
  ['CordonError', () => new CordonError('E_SETUP', 'base')],
  ['PolicyError', () => new PolicyError('bad field', { where: 'filesystem.write[0]' })],
  ['UnsupportedError', () => new UnsupportedError('landlock', 'ABI 1', 'none', 'a newer kernel')],
  ['SetupError', () => new SetupError('landlock', 'landlock_restrict_self', 1, 'EPERM')],
  ['SandboxDeniedError', () => new SandboxDeniedError('denied', ['Permission denied'])],
  ['LoadError', () => new LoadError('no addon', ['/x'], 'rebuild')],
  ['AbortError', () => new AbortError()],
  ['ForbiddenError', () => new ForbiddenError('rm -rf /')],
]

describe.each(examples)('%s', (name, make) => {
  it('has its name as a fixed string, not enumerable, like a built-in error', () => {
    const err = make()
    expect(err.name).toBe(name)
    expect(Object.getOwnPropertyDescriptor(err, 'name')).toEqual({ value: name, writable: true, enumerable: false, configurable: true })
    expect(Object.keys(err)).not.toContain('name')
    expect(String(err)).toBe(`${name}: ${err.message}`)
    expect(err.stack?.split('\n')[0]).toBe(`${name}: ${err.message}`)
  })

  it('keeps name, code, message and its own fields in JSON', () => {
    const err = make()
    const json = JSON.parse(JSON.stringify(err)) as Record<string, unknown>
    expect(json).toEqual({ name, ...(err as object), message: err.message })
    expect(json).toMatchObject({ name, code: err.code, message: err.message })
  })
})

describe('names', () => {
  it('do not come from the class: a renamed class (as a minifier renames it) keeps them', () => {
    // What esbuild's minifier does to `class PolicyError extends CordonError`.
    const v = PolicyError
    Object.defineProperty(v, 'name', { value: 'v' })
    try {
      expect(new v('bad').name).toBe('PolicyError')
    } finally {
      Object.defineProperty(v, 'name', { value: 'PolicyError' })
    }
  })

  it('the JSON of an error keeps the fields a caller switches on, and not the cause', () => {
    const err = new SetupError('cwd', 'chdir', 13, 'EACCES', '/w', { cause: new Error('native') })
    expect(err.cause).toBeInstanceOf(Error)
    expect(JSON.parse(JSON.stringify(err))).toEqual({
      name: 'SetupError',
      code: 'E_SETUP',
      step: 'cwd',
      syscall: 'chdir',
      errno: 13,
      errnoCode: 'EACCES',
      hostChanged: false,
      message: "sandbox setup failed at step 'cwd': chdir: EACCES (errno 13) — /w",
    })
  })
})
