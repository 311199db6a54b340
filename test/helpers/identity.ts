/**
 * The identities a confinement test runs as. The caller of cordon is often
 * root (CI, containers) and usually an unprivileged user: both must be
 * confined. When the test process is root, the unprivileged pass runs the
 * driver as `cordon-probe` through setpriv; when it is not root, it runs as
 * the test process itself and the root pass is skipped. The globalSetup
 * found which of them can run here (host.ts).
 */
import { wrapFor, type IdentityName, type Missing } from './host.js'
import { host } from './requirements.js'
import type { ScratchEnv } from './scratch.js'

export interface Identity {
  name: IdentityName
  uid: number
  gid: number
  /** Why this pass cannot run here (printed when its tests skip, never a silent pass). */
  missing: Missing | undefined
  /** Prefix that runs a program as this identity. */
  wrap(argv: readonly string[]): string[]
  /** TMPDIR and XDG_RUNTIME_DIR for a process run as this identity: its temp files stay in the run's own root. */
  env: Partial<ScratchEnv>
}

let cached: Identity[] | undefined

/** Both identities, each with what it lacks here, if anything. */
export function identities(): Identity[] {
  if (cached) return cached
  const facts = host()
  cached = (['root', 'unprivileged'] as const).map((name) => {
    const { uid, gid, missing } = facts.identities[name]
    return { name, uid, gid, missing, wrap: wrapFor(name), env: facts.scratch[uid] ?? {} }
  })
  return cached
}

/** The identity the test process itself has. */
export function self(): Identity {
  return identities().find((i) => i.uid === process.getuid?.())!
}
