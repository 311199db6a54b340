/**
 * Whether namespace mode can run for an identity here: the same bwrap trial
 * the SDK runs, executed as that identity (AppArmor, for one, restricts only
 * unprivileged callers). A test that cannot run prints this reason.
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Identity } from '../../../helpers/identity.js'
import { repoRoot } from '../../../helpers/paths.js'

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

/**
 * The compiled probes, copied where a namespace-mode sandbox can see them.
 * The harness compiles them under the host /tmp, which namespace mode
 * replaces with a private tmpfs; test/.tmp (git-ignored) stays visible.
 */
export function visibleProbes(probeDir: string): { path(name: string): string; cleanup(): void } {
  mkdirSync(join(repoRoot, 'test', '.tmp'), { recursive: true })
  const dir = mkdtempSync(join(repoRoot, 'test', '.tmp', 'ns-probes-'))
  chmodSync(dir, 0o755)
  for (const f of readdirSync(probeDir)) copyFileSync(join(probeDir, f), join(dir, f))
  for (const f of readdirSync(dir)) chmodSync(join(dir, f), 0o755)
  return { path: (name) => join(dir, `probe-${name}`), cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}
