/**
 * Harden the calling process: not dumpable (so a sandboxed child running as
 * the same user cannot read this process's memory through /proc or
 * ptrace), no core files, no LD_/DYLD_ variables. Explicit, not implicit:
 * it changes the whole Node process (debuggers can no longer attach).
 */
import { loadNative } from './native/load.js'
import { fromNativeError } from './native/native-error.js'
import type { NativeHardening } from './native/binding.js'

export function hardenProcess(): NativeHardening {
  try {
    // The addon unsets LD_*/DYLD_* in the real environment, which process.env reads live.
    return loadNative().binding.hardenSelf()
  } catch (err) {
    // An error of the addon's (it names the syscall) becomes a SetupError; a LoadError stays one.
    if ((err as { syscall?: unknown }).syscall) throw fromNativeError(err, { step: 'harden' })
    throw err
  }
}
