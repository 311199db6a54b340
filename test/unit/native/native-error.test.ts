/**
 * fromNativeError, the one conversion of a native failure into a SetupError,
 * for each shape that reaches it: an error the addon threw, a Node error from
 * node:fs, the launcher's record of a failed step, an errno the zygote
 * answered with, and the edges (errno 0, a number with no name, something
 * that is not an error at all). The real addon and node:fs make the errors
 * where they can.
 */
import { mkdirSync, mkdtempSync, openSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { SetupError } from '../../../src/errors.js'
import { loadNative } from '../../../src/native/load.js'
import { fromNativeError } from '../../../src/native/native-error.js'

const dir = mkdtempSync(join(tmpdir(), 'cordon-native-error-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** What fn throws (it must throw). */
function thrownBy(fn: () => unknown): unknown {
  try {
    fn()
  } catch (e) {
    return e
  }
  throw new Error('expected a throw')
}

/** The fields a caller reads, with the message. */
const fields = (e: SetupError) => ({ name: e.name, code: e.code, step: e.step, syscall: e.syscall, errno: e.errno, errnoCode: e.errnoCode, message: e.message })

describe('an error the addon threw ({ code, errno, syscall, step })', () => {
  it('keeps its step, syscall and errno, names the errno, appends the detail, and keeps it as the cause', () => {
    symlinkSync('/', join(dir, 'link'))
    const native = thrownBy(() => loadNative().binding.openNoFollow(join(dir, 'link', 'etc')))
    expect(native).toMatchObject({ code: 'ELOOP', errno: 40, syscall: 'openat', step: 'launch' })
    const e = fromNativeError(native, { step: 'launch', syscall: 'openat', detail: 'moved' })
    expect(e).toBeInstanceOf(SetupError)
    expect(fields(e)).toEqual({ name: 'SetupError', code: 'E_SETUP', step: 'launch', syscall: 'openat', errno: 40, errnoCode: 'ELOOP', message: "sandbox setup failed at step 'launch': openat: ELOOP (errno 40) — moved" })
    expect(e.cause).toBe(native)
  })

  it("uses the caller's step and syscall only where the addon names none", () => {
    const native = thrownBy(() => loadNative().binding.close(-1))
    expect(native).toMatchObject({ code: 'EBADF', errno: 9, syscall: 'close', step: 'launch' })
    expect(fields(fromNativeError(native, { step: 'harden', syscall: 'other' }))).toMatchObject({ step: 'launch', syscall: 'close', errnoCode: 'EBADF' })
    // The addon reports a missing step or syscall as ''.
    const bare = Object.assign(new Error('native: ?: Success'), { code: 'EPERM', errno: 1, syscall: '', step: '' })
    expect(fields(fromNativeError(bare, { step: 'harden', syscall: 'prctl' }))).toMatchObject({ step: 'harden', syscall: 'prctl', errno: 1, errnoCode: 'EPERM' })
  })

  it("names the errno as Node does, not by the addon's short table ('EUNKNOWN' outside it, EOPNOTSUPP for 95)", () => {
    const addon = (errno: number, code: string) => Object.assign(new Error('x'), { code, errno, syscall: 'prctl', step: 'harden' })
    expect(fromNativeError(addon(14, 'EUNKNOWN'), { step: 'harden' }).errnoCode).toBe('EFAULT')
    expect(fromNativeError(addon(95, 'EOPNOTSUPP'), { step: 'harden' }).errnoCode).toBe('ENOTSUP')
    expect(fromNativeError(addon(11, 'EAGAIN'), { step: 'harden' }).errnoCode).toBe('EAGAIN')
  })

  it('errno 0 keeps the addon\'s code; a number with no name is E<n>', () => {
    const zero = Object.assign(new Error('x'), { code: 'EUNKNOWN', errno: 0, syscall: 'validate', step: 'seccomp' })
    expect(fields(fromNativeError(zero, { step: 'launch' }))).toMatchObject({ step: 'seccomp', syscall: 'validate', errno: 0, errnoCode: 'EUNKNOWN', message: "sandbox setup failed at step 'seccomp': validate: EUNKNOWN (errno 0)" })
    const odd = Object.assign(new Error('x'), { code: 'EUNKNOWN', errno: 4000, syscall: 'recv', step: 'launch' })
    expect(fields(fromNativeError(odd, { step: 'launch' }))).toMatchObject({ errno: 4000, errnoCode: 'E4000' })
  })

  it("a TypeError for bad arguments (no errno, no syscall): the caller's step and syscall, EUNKNOWN", () => {
    const native = thrownBy(() => loadNative().binding.openNoFollow('/a\0b'))
    expect(native).toBeInstanceOf(TypeError)
    expect(fields(fromNativeError(native, { step: 'launch', syscall: 'openat', detail: 'd' }))).toEqual({
      name: 'SetupError', code: 'E_SETUP', step: 'launch', syscall: 'openat', errno: 0, errnoCode: 'EUNKNOWN', message: "sandbox setup failed at step 'launch': openat: EUNKNOWN (errno 0) — d",
    })
  })
})

describe('a Node error from node:fs (ErrnoException, errno negative)', () => {
  it("takes the caller's step, the error's syscall, and the errno as a positive number", () => {
    const native = thrownBy(() => mkdirSync(join(dir, 'missing', 'placeholder'))) as NodeJS.ErrnoException
    expect(native).toMatchObject({ code: 'ENOENT', errno: -2, syscall: 'mkdir' })
    const e = fromNativeError(native, { step: 'placeholder', syscall: 'mkdir', detail: `could not make the mount point ${dir}/missing` })
    expect(fields(e)).toEqual({ name: 'SetupError', code: 'E_SETUP', step: 'placeholder', syscall: 'mkdir', errno: 2, errnoCode: 'ENOENT', message: `sandbox setup failed at step 'placeholder': mkdir: ENOENT (errno 2) — could not make the mount point ${dir}/missing` })
    expect(e.cause).toBe(native)
  })

  it("names the errno as Node's own code does", () => {
    const native = thrownBy(() => openSync(dir, 'w')) as NodeJS.ErrnoException
    expect(fromNativeError(native, { step: 'placeholder' })).toMatchObject({ syscall: 'open', errno: 21, errnoCode: native.code })
  })

  it("without an errno (an ERR_* argument error) keeps Node's code", () => {
    const native = thrownBy(() => mkdirSync('/a\0b')) as NodeJS.ErrnoException
    expect(native.errno).toBeUndefined()
    expect(fields(fromNativeError(native, { step: 'placeholder', syscall: 'mkdir' }))).toMatchObject({ step: 'placeholder', syscall: 'mkdir', errno: 0, errnoCode: 'ERR_INVALID_ARG_VALUE' })
  })
})

describe("the launcher's record of a failed step ({ ok: false, step, syscall, errno, detail })", () => {
  it('is the error: its step, syscall, errno and detail; no cause (it is not an error)', () => {
    const e = fromNativeError({ ok: false, step: 'cwd', syscall: 'chdir', errno: 13, detail: '/work' }, { step: 'unknown' })
    expect(fields(e)).toEqual({ name: 'SetupError', code: 'E_SETUP', step: 'cwd', syscall: 'chdir', errno: 13, errnoCode: 'EACCES', message: "sandbox setup failed at step 'cwd': chdir: EACCES (errno 13) — /work" })
    expect(e.cause).toBeUndefined()
    expect(Object.hasOwn(e, 'cause')).toBe(false)
  })

  it("an empty detail adds nothing; a record without step or syscall says 'unknown'", () => {
    expect(fromNativeError({ ok: false, step: 'landlock', syscall: 'landlock_restrict_self', errno: 1, detail: '' }, { step: 'unknown' }).message).toBe(
      "sandbox setup failed at step 'landlock': landlock_restrict_self: EPERM (errno 1)",
    )
    expect(fields(fromNativeError({ ok: false, errno: 12 }, { step: 'unknown' }))).toMatchObject({ step: 'unknown', syscall: 'unknown', errno: 12, errnoCode: 'ENOMEM' })
  })

  it('errno 0 is EUNKNOWN; a number with no name is E<n>', () => {
    expect(fromNativeError({ ok: false, step: 'plan', syscall: 'parse', errno: 0, detail: '' }, { step: 'unknown' })).toMatchObject({ errno: 0, errnoCode: 'EUNKNOWN' })
    expect(fromNativeError({ ok: false, step: 'plan', syscall: 'parse', errno: 4000, detail: '' }, { step: 'unknown' })).toMatchObject({ errno: 4000, errnoCode: 'E4000' })
  })
})

describe('an errno the zygote answered with', () => {
  it("is named, with the caller's step and syscall", () => {
    expect(fields(fromNativeError({ errno: 11 }, { step: 'launch', syscall: 'fork', detail: 'the launcher zygote could not fork' }))).toEqual({
      name: 'SetupError', code: 'E_SETUP', step: 'launch', syscall: 'fork', errno: 11, errnoCode: 'EAGAIN', message: "sandbox setup failed at step 'launch': fork: EAGAIN (errno 11) — the launcher zygote could not fork",
    })
  })
})

describe('something that is not an error', () => {
  it.each([undefined, null, 'boom', 42])('%s: the caller\'s step and syscall, errno 0, EUNKNOWN', (thrown) => {
    expect(fields(fromNativeError(thrown, { step: 'launch', syscall: 'zygote' }))).toMatchObject({ step: 'launch', syscall: 'zygote', errno: 0, errnoCode: 'EUNKNOWN' })
  })
})
