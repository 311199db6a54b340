/**
 * Kernel surface and syscall-filter bypasses
 * (threat-model.md § Kernel surface and syscall-filter bypasses): each call
 * must be refused by the seccomp filter with the exact errno of
 * profiles/linux/seccomp.rules, or kill the process (foreign ABIs).
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeEscape, Escape, outcomeOf } from '../../helpers/escape.js'
import { skipNow } from '../../helpers/requirements.js'

describeEscape('kernel surface', (identity, mode) => {
  let e: Escape
  const isRoot = identity.name === 'root'
  beforeAll(() => {
    e = new Escape(identity, mode, 'kernel')
  })
  afterAll(() => e?.cleanup())
  const kernel = (...args: string[]) => [e.probe('kernel'), ...args]

  it('io_uring_setup', async () => {
    await e.denial(kernel('io-uring'), 'EPERM')
  })

  it('getpid through int $0x80 (i386 ABI) is killed with SIGSYS', async (ctx) => {
    const plain = await e.unconfined(kernel('int80'))
    if (outcomeOf(plain) !== 'OK') {
      skipNow(ctx, { reason: `int $0x80 does not reach the syscall entry on this host (unconfined: ${outcomeOf(plain)}; no IA32 entry), so no filter can see it` })
    }
    expect(outcomeOf(await e.confined(kernel('int80')))).toBe('SIGSYS')
  })

  // Both modes report the command's own wait status (the launcher's
  // supervisor), so a seccomp kill is signal SIGSYS, not bwrap's exit 159.
  it('an x32 syscall (nr | 0x40000000) is killed with SIGSYS', async () => {
    // Unconfined the kernel runs it, or answers ENOSYS without CONFIG_X86_X32_ABI: never a kill.
    await e.denial(kernel('x32'), 'SIGSYS', 'differs')
  })

  it('clone3 answers ENOSYS', async () => {
    await e.denial(kernel('clone3'), 'ENOSYS')
  })

  it('fork() and pthread_create() still work (glibc falls back to clone)', async () => {
    await e.denial(kernel('fork'), 'OK')
    await e.denial(kernel('thread'), 'OK')
  })

  it('bpf', async () => {
    // Unprivileged, the kernel refuses BPF_MAP_CREATE itself (unprivileged_bpf_disabled).
    await e.denial(kernel('bpf', 'real'), 'EPERM', isRoot ? 'OK' : 'any')
    await e.denial(kernel('bpf', 'invalid'), 'EPERM', 'EINVAL')
  })

  it('perf_event_open', async () => {
    await e.denial(kernel('perf', 'real'), 'EPERM')
    await e.denial(kernel('perf', 'invalid'), 'EPERM', 'EFAULT')
  })

  it('userfaultfd', async () => {
    await e.denial(kernel('userfaultfd'), 'EPERM')
  })

  it.each(['keyctl', 'add-key', 'request-key'])('%s', async (call) => {
    await e.denial(kernel(call), 'EPERM')
  })

  it('personality(ADDR_NO_RANDOMIZE)', async () => {
    await e.denial(kernel('personality', '0x0040000'), 'EPERM')
  })

  it('personality(0x100040000): ADDR_NO_RANDOMIZE hidden behind high bits', async () => {
    await e.denial(kernel('personality', '0x100040000'), 'EPERM')
  })

  it('personality(0xffffffff) (the query) still works', async () => {
    await e.denial(kernel('personality', '0xffffffff'), 'OK')
  })

  it.each(['kexec', 'init-module'])('%s', async (call) => {
    // Nothing is loaded: the arguments are invalid. Root reaches the kernel's
    // argument check (or ENOSYS when not built in); unprivileged, the kernel's
    // own capability check also answers EPERM.
    await e.denial(kernel(call), 'EPERM', isRoot ? 'differs' : 'any')
  })

  it('seccomp(SET_MODE_FILTER, NEW_LISTENER)', async () => {
    await e.denial(kernel('seccomp-listener'), 'EPERM')
  })
})
