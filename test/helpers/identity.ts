/**
 * The identities a confinement test runs as. The caller of cordon is often
 * root (CI, containers) and usually an unprivileged user: both must be
 * confined. When the test process is root, the unprivileged pass runs the
 * driver as `cordon-probe` through setpriv; when it is not root, it runs as
 * the test process itself and the root pass is skipped.
 */
import { spawnSync } from 'node:child_process'
import { distIndex, driverPath, launcherPath, PROBE_USER } from './paths.js'

export interface Identity {
  name: 'root' | 'unprivileged'
  uid: number
  gid: number
  /** Why this pass cannot run here (printed, never a silent pass). */
  skip: string | undefined
  /** Prefix that runs a program as this identity. */
  wrap(argv: readonly string[]): string[]
}

const isRoot = process.getuid?.() === 0

function lookup(user: string): { uid: number; gid: number } | undefined {
  const uid = spawnSync('id', ['-u', user], { encoding: 'utf8' })
  const gid = spawnSync('id', ['-g', user], { encoding: 'utf8' })
  if (uid.status !== 0 || gid.status !== 0) return undefined
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) }
}

const asProbeUser = (argv: readonly string[]) => [
  'setpriv', `--reuid=${PROBE_USER}`, `--regid=${PROBE_USER}`, '--clear-groups', '--inh-caps=-all', ...argv,
]

/** Can `cordon-probe` read the driver, dist/ and the launcher, and the extra paths? */
function unreachable(extra: readonly string[]): string | undefined {
  const checks = [`test -r '${driverPath}'`, `test -r '${distIndex}'`, `test -x '${launcherPath}'`, ...extra.map((p) => `test -r '${p}'`)]
  const [file, ...args] = asProbeUser(['/bin/sh', '-c', checks.join(' && ')])
  const r = spawnSync(file!, args)
  return r.status === 0 ? undefined : `${PROBE_USER} cannot traverse the checkout or the probes (${[driverPath, distIndex, launcherPath, ...extra].join(', ')})`
}

function unprivileged(extra: readonly string[]): Identity {
  if (!isRoot) {
    return { name: 'unprivileged', uid: process.getuid!(), gid: process.getgid!(), skip: undefined, wrap: (argv) => [...argv] }
  }
  const ids = lookup(PROBE_USER)
  const skip = ids ? unreachable(extra) : `user ${PROBE_USER} does not exist (the vitest globalSetup creates it when run as root)`
  return { name: 'unprivileged', uid: ids?.uid ?? -1, gid: ids?.gid ?? -1, skip, wrap: asProbeUser }
}

let cached: Identity[] | undefined

/**
 * Both identities, each with a skip reason when it cannot run here.
 * `extra`: more paths the unprivileged identity must be able to read.
 */
export function identities(extra: readonly string[] = []): Identity[] {
  if (cached) return cached
  const root: Identity = {
    name: 'root',
    uid: 0,
    gid: 0,
    skip: isRoot ? undefined : `the test process is not root (uid ${process.getuid?.()}): the root-caller pass needs root`,
    wrap: (argv) => [...argv],
  }
  cached = [root, unprivileged(extra)]
  for (const id of cached) if (id.skip) console.warn(`[cordon escape tests] skipping the ${id.name} pass: ${id.skip}`)
  return cached
}
