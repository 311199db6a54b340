/**
 * Whether namespace mode can run for an identity here: the same bwrap trial
 * the SDK runs, executed as that identity (AppArmor, for one, restricts only
 * unprivileged callers). A test that cannot run prints this reason.
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import type { Identity } from '../../../helpers/identity.js'

const BWRAP = ['/usr/bin/bwrap', '/usr/local/bin/bwrap'].find((p) => existsSync(p))
const cache = new Map<string, string | undefined>()

/** undefined when namespace mode works for `identity`; otherwise why not. */
export function namespaceSkip(identity: Identity): string | undefined {
  if (identity.skip) return identity.skip
  if (cache.has(identity.name)) return cache.get(identity.name)
  let why: string | undefined
  if (!BWRAP) why = 'bubblewrap is not installed (apt-get install bubblewrap)'
  else {
    const trial = [BWRAP, '--unshare-user', '--unshare-pid', '--unshare-net', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--', '/bin/true']
    const [file, ...args] = identity.wrap(trial)
    const r = spawnSync(file!, args, { encoding: 'utf8' })
    if (r.status !== 0) why = `bwrap cannot create namespaces for the ${identity.name} caller here: ${r.stderr.trim() || r.error?.message}`
  }
  if (why) console.warn(`[cordon namespace tests] skipping the ${identity.name} pass: ${why}`)
  cache.set(identity.name, why)
  return why
}
