/**
 * The Linux backend's HostFacts (platform/backend.ts): the addon reads the
 * environment and lstats a batch of paths in one call each
 * (native/linux/host-facts.c says what that saves, and why it is sound).
 */
import { isMainThread } from 'node:worker_threads'
import type { PathKind } from '../../profile/paths.js'
import type { HostFacts } from '../backend.js'
import type { NativeBinding } from '../../native/binding.js'
import { loadNative } from '../../native/load.js'

/** enum cordon_path_kind (native/linux/host-facts.h), by value. */
const KINDS: readonly PathKind[] = ['missing', 'symlink', 'present', 'error']

type FactsBinding = Required<Pick<NativeBinding, 'environBlock' | 'lstatKinds'>>

export function linuxHostFacts(binding: () => FactsBinding = () => loadNative().binding as FactsBinding): HostFacts {
  return {
    // environ(7) is process.env only on the main thread: a worker's process.env is a copy of its own.
    environmentKey: () => (isMainThread ? binding().environBlock() : undefined),
    pathKinds(paths) {
      let joined = ''
      for (const p of paths) {
        // A NUL would split the batch wrongly: such a path is no file's name, and Node's lstat refuses it too.
        if (p.includes('\0')) return paths.map(() => 'error')
        joined += `${p}\0`
      }
      const kinds = binding().lstatKinds(joined)
      return paths.map((_, i) => KINDS[kinds[i] ?? 3] ?? 'error')
    },
  }
}
