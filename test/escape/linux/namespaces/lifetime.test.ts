/**
 * Process lifetime (threat-model.md § Processes and privilege): in both
 * modes the sandboxed tree cannot outlive its caller — not even a
 * double-forked, setsid'd grandchild — and in namespace mode the host's
 * processes are invisible from inside.
 *
 * Processes are found from outside by a unique marker in their command line
 * (/proc/<pid>/cmdline on the host), since pids inside are namespaced.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chownSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { Escape } from '../../../helpers/escape.js'
import { identities } from '../../../helpers/identity.js'
import { modeMissing } from '../../../helpers/modes.js'
import { driverPath } from '../../../helpers/paths.js'
import { describeWhere } from '../../../helpers/requirements.js'
import { removeTree } from '../../../helpers/temp.js'

/** Host pids whose command line contains `marker`. */
function pidsWith(marker: string): number[] {
  const out: number[] = []
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue
    try {
      if (readFileSync(`/proc/${e}/cmdline`, 'utf8').includes(marker)) out.push(Number(e))
    } catch {
      /* exited meanwhile */
    }
  }
  return out
}

async function until(what: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (what()) return true
    await new Promise((r) => setTimeout(r, 50))
  }
  return what()
}

/** A unique `sleep` duration: visible in cmdline, harmless, and it sleeps long enough. */
const marker = () => `1000.${BigInt('0x' + randomBytes(5).toString('hex')).toString().padStart(13, '0')}`

// Landlock mode too: the launcher's supervisor is a subreaper that tears the
// tree down on the caller's death (parent-death signal) and on a timeout.
describe.each(identities())('process lifetime and visibility — caller: $name', (identity) => {
  describe.each(['namespaces', 'landlock'] as const)('mode: %s', (mode) => {
  describeWhere(modeMissing(identity, mode), mode === 'namespaces' ? 'bwrap' : 'launcher', () => {
    let e: Escape
    beforeAll(() => {
      e = new Escape(identity, mode, 'lifetime')
    })
    afterAll(() => e?.cleanup())

    /** A driver the test may kill: its sandbox's temp dir, which it cannot remove then, goes into one the test removes. */
    function startDriver(command: string[]): ChildProcess {
      const tmp = mkdtempSync(join(tmpdir(), 'lifetime-driver-'))
      if (process.getuid?.() !== identity.uid) chownSync(tmp, identity.uid, identity.gid)
      onTestFinished(() => removeTree(tmp))
      const [file, ...args] = identity.wrap([process.execPath, driverPath])
      const env = { ...identity.env, PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: e.tree.home, TMPDIR: tmp }
      const child = spawn(file!, args, { env, stdio: ['pipe', 'ignore', 'ignore'] })
      child.stdin!.end(JSON.stringify({ options: e.options(), command }))
      return child
    }

    it('SIGKILL of the caller kills the whole tree, double-forked setsid grandchildren included', async () => {
      const [a, b, c] = [marker(), marker(), marker()]
      const script = `(setsid sleep ${a} &) ; (setsid sh -c 'setsid sleep ${b} & exit 0' &) ; exec sleep ${c}`
      const driver = startDriver(['/bin/sh', '-c', script])
      try {
        expect(await until(() => [a, b, c].every((m) => pidsWith(m).length > 0), 10_000), 'the sandboxed tree started').toBe(true)
        driver.kill('SIGKILL')
        const gone = await until(() => [a, b, c].every((m) => pidsWith(m).length === 0), 5_000)
        expect(gone, `still running: ${[a, b, c].flatMap(pidsWith).join(', ')}`).toBe(true)
      } finally {
        for (const pid of [a, b, c].flatMap(pidsWith)) process.kill(pid, 'SIGKILL')
      }
    })

    it('a timeout kills the whole tree too', async () => {
      const m = marker()
      const r = await e.confined(['/bin/sh', '-c', `(setsid sleep ${m} &) ; exec sleep ${marker()}`], { runOptions: { timeout: 1500 } })
      expect(r.result?.timedOut, JSON.stringify(r)).toBe(true)
      expect(await until(() => pidsWith(m).length === 0, 5_000)).toBe(true)
    })

    // Namespace mode only: Landlock-only mode does not hide host processes (README, security model).
    if (mode === 'namespaces') it('host processes are invisible: /proc shows the sandbox only, host pids cannot be signalled', async () => {
      const m = marker()
      const host = spawn('/bin/sleep', [m], { stdio: 'ignore' })
      try {
        const script = `cat /proc/[0-9]*/cmdline | tr '\\0' ' '; echo; ls /proc | grep -c '^[0-9]'; kill -0 ${host.pid} && echo SIGNALLED || echo ESRCH`
        const [confined, plain] = await e.both(['/bin/sh', '-c', script])
        expect(plain.result!.stdout).toContain(m) // the probe does see host processes when unconfined
        expect(confined.result!.stdout).not.toContain(m)
        const [, count, verdict] = confined.result!.stdout.trim().split('\n')
        expect(Number(count)).toBeLessThan(10)
        expect(verdict).toBe('ESRCH')
      } finally {
        host.kill('SIGKILL')
      }
    })
  })
})
})
