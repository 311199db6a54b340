/**
 * Fileless execution (threat-model.md § Processes and privilege): a binary
 * copied into a memfd and run through execveat(AT_EMPTY_PATH) or
 * /proc/self/fd/N bypasses every path-based execute rule — Landlock allows
 * anything on the kernel's internal tmpfs. The syscall filter refuses
 * executable memfds (ENOSYS, so programs fall back to files) and
 * execveat(AT_EMPTY_PATH); what real programs need — sealed, non-executable
 * memfds and glibc's fexecve of a file — keeps working.
 */
import { beforeAll, afterAll, expect, it } from 'vitest'
import { describeEscape, Escape, outcomeOf } from '../../helpers/escape.js'

const BINARY = '/bin/true'

describeEscape('fileless execution', (identity, mode) => {
  let e: Escape
  beforeAll(() => {
    e = new Escape(identity, mode, 'fileless')
  })
  afterAll(() => e?.cleanup())
  const exec = (...args: string[]) => [e.probe('exec'), ...args]

  it('an executable memfd run with execveat(AT_EMPTY_PATH): memfd_create answers ENOSYS', async () => {
    await e.denial(exec('memfd-execveat', BINARY), 'ENOSYS')
  })

  it('an executable memfd run through /proc/self/fd/N: memfd_create answers ENOSYS', async () => {
    await e.denial(exec('memfd-proc', BINARY), 'ENOSYS')
  })

  it('a sealed, non-executable memfd (MFD_NOEXEC_SEAL) still works, and still cannot be executed', async () => {
    const [confined, plain] = await e.both(exec('memfd-noexec'))
    expect([outcomeOf(confined), outcomeOf(plain)]).toEqual(['OK', 'OK'])
    const [run, runPlain] = await e.both(exec('memfd-noexec-exec', BINARY))
    expect([outcomeOf(run), outcomeOf(runPlain)]).toEqual(['EACCES', 'EACCES'])
  })

  it('execveat(AT_EMPTY_PATH) of any fd answers ENOSYS', async () => {
    await e.denial(exec('execveat-file', BINARY), 'ENOSYS')
  })

  it("glibc's fexecve of a file keeps working (it falls back to /proc/self/fd/N, which execute rules see)", async () => {
    const [confined, plain] = await e.both(exec('fexecve-file', BINARY))
    expect([outcomeOf(confined), outcomeOf(plain)]).toEqual(['OK', 'OK'])
  })
})
