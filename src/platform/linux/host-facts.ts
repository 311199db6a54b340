/**
 * The Linux backend's HostFacts (platform/backend.ts): the addon reads the
 * environment and lstats a batch of paths in one call each
 * (native/linux/host-facts.c says what that saves, and why it is sound).
 */
import { randomUUID } from 'node:crypto'
import { isMainThread } from 'node:worker_threads'
import type { PathKind } from '../../profile/paths.js'
import type { EnvironmentRead, HostFacts } from '../backend.js'
import type { NativeBinding } from '../../native/binding.js'
import { loadNative } from '../../native/load.js'

/** enum cordon_path_kind (native/linux/host-facts.h), by value. */
const KINDS: readonly PathKind[] = ['missing', 'symlink', 'present', 'error']

type FactsBinding = Required<Pick<NativeBinding, 'environBlock' | 'lstatKinds'>>

/**
 * The environ block as process.env shows it: each `NAME=value` split at its
 * first `=` (an entry without one is not a variable: libuv skips it), the
 * first of two entries of one name wins (getenv(3) finds that one), bytes
 * read as UTF-8 (Node decodes the environment so).
 */
export function variablesOf(block: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const entry of block.split('\0')) {
    const eq = entry.indexOf('=')
    if (eq < 0) continue
    const name = Buffer.from(entry.slice(0, eq), 'latin1').toString('utf8')
    if (!Object.hasOwn(out, name)) out[name] = Buffer.from(entry.slice(eq + 1), 'latin1').toString('utf8')
  }
  return out
}

function environmentRead(block: string): EnvironmentRead {
  return { key: block, variables: () => variablesOf(block) }
}

const PROBE = 'CORDON_ENVIRON_PROBE'
/** process.env objects already looked at, and whether environ follows each. */
const followed = new WeakMap<object, boolean>()

/**
 * Whether environ(7) follows `env`: true for Node's own process.env (its
 * writes are setenv(3)), false for an object a program put in its place
 * (`process.env = { ...process.env }`, a test idiom) — whose changes environ
 * never sees, so a key read from environ would stay the same while the
 * environment a sandbox is made from changes (red team: a removed secret
 * still reached a kept sandbox). Found once per object, by a variable set
 * through it (with a value no one else has) and looked for in environ, then
 * removed again.
 */
function environFollows(env: NodeJS.ProcessEnv, block: () => string): boolean {
  const known = followed.get(env)
  if (known !== undefined) return known
  const value = randomUUID()
  const before = env[PROBE] // should the name be set already, it is put back as it was
  env[PROBE] = value
  let follows: boolean
  try {
    follows = `\0${block()}`.includes(`\0${PROBE}=${value}\0`)
  } finally {
    if (before === undefined) delete env[PROBE]
    else env[PROBE] = before
  }
  followed.set(env, follows)
  return follows
}

export function linuxHostFacts(binding: () => FactsBinding = () => loadNative().binding as FactsBinding): HostFacts {
  return {
    // environ(7) is process.env only on the main thread (a worker's process.env is a copy of its
    // own), and only while process.env is Node's own object.
    environment() {
      if (!isMainThread || !environFollows(process.env, () => binding().environBlock())) return undefined
      return environmentRead(binding().environBlock())
    },
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
