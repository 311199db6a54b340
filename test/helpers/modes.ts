/**
 * The sandbox modes every escape probe runs in. Landlock-only mode always;
 * namespace mode (bubblewrap) joins this list once it is implemented and
 * available here, and the same probes then run unchanged in both.
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { testTmp } from './paths.js'

/** Host directories namespace mode replaces with a private tmpfs. */
const PRIVATE_IN_NAMESPACES = ['/tmp', '/var/tmp', '/dev/shm']

/** Why namespace mode cannot see the harness's files from this checkout, if it cannot. */
function hiddenCheckout(): string | undefined {
  const hidden = PRIVATE_IN_NAMESPACES.find((d) => testTmp === d || testTmp.startsWith(`${d}/`))
  return hidden && `the checkout (${testTmp}) lies under ${hidden}, which namespace mode replaces with a private tmpfs, so the probes and temp trees would be invisible inside the sandbox; run from a checkout outside ${hidden}`
}

export type TestMode = 'landlock' | 'namespaces'

let modes: TestMode[] | undefined

/**
 * Landlock always; namespaces when bubblewrap can create user, pid and net
 * namespaces with a fresh /proc here (the trial the SDK runs). When it
 * cannot, the reason is printed and only Landlock mode runs.
 */
export function sandboxModes(): TestMode[] {
  if (modes) return modes
  const hidden = hiddenCheckout()
  if (hidden) {
    console.warn(`[cordon escape tests] namespace mode not tested: ${hidden}`)
    return (modes = ['landlock'])
  }
  const bwrap = ['/usr/bin/bwrap', '/usr/local/bin/bwrap'].find((p) => existsSync(p))
  const trial = bwrap && spawnSync(bwrap, ['--unshare-user', '--unshare-pid', '--unshare-net', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--', '/bin/true'], { encoding: 'utf8' })
  const ok = !!trial && trial.status === 0
  if (!ok) console.warn(`[cordon escape tests] namespace mode not tested: ${bwrap ? `bwrap cannot create namespaces here (${trial && (trial.stderr.trim() || trial.error?.message)})` : 'bubblewrap is not installed'}`)
  modes = ok ? ['landlock', 'namespaces'] : ['landlock']
  return modes
}
