/**
 * Harden the calling process: not dumpable (so a sandboxed child running as
 * the same user cannot read this process's memory through /proc or
 * ptrace), no core files, no LD_/DYLD_ variables. Explicit, not implicit:
 * it changes the whole Node process (debuggers can no longer attach).
 */
import { SetupError } from './errors.js'
import { loadNative } from './native/load.js'
import type { NativeHardening } from './native/binding.js'

export function hardenProcess(): NativeHardening {
  try {
    // The addon unsets LD_*/DYLD_* in the real environment, which process.env reads live.
    return loadNative().binding.hardenSelf()
  } catch (err) {
    const e = err as { step?: string; syscall?: string; errno?: number; code?: string }
    if (e.syscall) throw new SetupError(e.step ?? 'harden', e.syscall, e.errno ?? 0, e.code ?? 'EUNKNOWN')
    throw err
  }
}
