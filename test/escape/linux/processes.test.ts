/**
 * Processes and privilege (threat-model.md § Processes and privilege):
 * reaching the caller's process, signalling outside processes, capabilities,
 * no_new_privs, setuid binaries, mount/namespace calls, inherited fds, secret
 * environment variables, terminal injection, rlimits and the session.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { chmodSync, chownSync, closeSync, copyFileSync, mkdirSync, openSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { describeEscape, Escape, firstLine, outcomeOf, SECRET_ENV } from '../../helpers/escape.js'
import { firstMissing, itWhere, unless } from '../../helpers/requirements.js'
import { INHERITED_FD } from '../../helpers/run-driver.js'

const ZERO = '0000000000000000'
const isRootProcess = process.getuid?.() === 0

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

function fields(line: string): Record<string, string> {
  return Object.fromEntries(line.split(' ').slice(1).map((kv) => kv.split('=') as [string, string]))
}

describeEscape('processes', (identity, mode) => {
  let e: Escape
  const isRoot = identity.name === 'root'
  // Namespace mode adds a pid namespace: outside processes are not even visible.
  const byMode = <T>(landlock: T, namespaces: T): T => (mode === 'landlock' ? landlock : namespaces)
  beforeAll(() => {
    e = new Escape(identity, mode, 'procs')
  })
  afterAll(() => e?.cleanup())
  const procs = (...args: string[]) => [e.probe('procs'), ...args]

  describe('the caller process (the sandbox parent)', () => {
    it('ptrace attach', async () => {
      await e.denial(procs('ptrace-parent'), 'EPERM')
    })

    it('process_vm_readv', async () => {
      await e.denial(procs('vmread-parent'), 'EPERM')
    })

    it("prlimit on a process outside the command — the caller (the supervisor in namespace mode); RLIMIT_CPU 1 s would kill it", async () => {
      await e.denial(procs('prlimit-parent'), 'EPERM')
    })

    it('/proc/<parent>/mem', async () => {
      await e.denial(procs('proc-parent', 'mem'), byMode('EACCES', 'ENOENT'))
    })

    it('/proc/<parent>/environ', async () => {
      await e.denial(procs('proc-parent', 'environ'), byMode('EACCES', 'ENOENT'))
    })
  })

  describe('signals to an outside process (Landlock signal scope; pid namespace)', () => {
    let sleeper: ChildProcess
    beforeAll(() => {
      const [file, ...args] = identity.wrap(['sleep', '300'])
      sleeper = spawn(file!, args, { stdio: 'ignore' })
    })
    afterAll(() => {
      sleeper.kill('SIGKILL')
    })

    it('kill(SIGTERM) of a sleeper run by the same user', async () => {
      const pid = String(sleeper.pid)
      const confined = await e.confined(procs('kill', pid))
      expect(outcomeOf(confined)).toBe(byMode('EPERM', 'ESRCH'))
      expect(alive(sleeper.pid!)).toBe(true)
      const plain = await e.unconfined(procs('kill', pid))
      expect(outcomeOf(plain)).toBe('OK')
    })

    it("the command cannot signal cordon's supervisor (so it cannot kill it to leave processes behind)", async () => {
      await e.denial(procs('signal-parent'), 'EPERM')
    })
  })

  describe('privilege', () => {
    it('capabilities are empty and no_new_privs is set', async () => {
      const [confined, plain] = await e.both(procs('status'))
      const c = fields(firstLine(confined.result!.stdout))
      const p = fields(firstLine(plain.result!.stdout))
      expect(c).toMatchObject({ CapEff: ZERO, CapPrm: ZERO, CapInh: ZERO, CapAmb: ZERO, NoNewPrivs: '1' })
      expect(p.NoNewPrivs).toBe('0')
      if (isRoot) {
        // A root caller can and must empty the bounding set too.
        expect(c.CapBnd).toBe(ZERO)
        expect(p.CapEff).not.toBe(ZERO)
      }
    })

    itWhere(
      firstMissing(unless(!isRoot, 'the caller is root already: a setuid-root binary gives it nothing to gain'), unless(isRootProcess, 'making a setuid-root file needs a root test process')),
      'a setuid-root copy of id does not gain euid 0',
      async () => {
        const dir = join(e.tree.base, `suid`)
        mkdirSync(dir, { recursive: true })
        chownSync(dir, 0, 0) // root-owned: the sandbox cannot swap the binary
        const id = join(dir, 'id')
        copyFileSync('/usr/bin/id', id)
        chownSync(id, 0, 0)
        chmodSync(id, 0o4755)
        const [confined, plain] = await e.both([id, '-u'])
        expect(firstLine(confined.result!.stdout)).toBe(String(identity.uid))
        expect(firstLine(plain.result!.stdout)).toBe('0')
      },
    )

    it.each([
      ['mount', true],
      ['umount', true],
      ['pivot-root', true],
      ['chroot', true],
      ['open-tree', true],
      ['open-tree-attr', true],
      ['fsopen', false],
    ] as const)('%s', async (call, needsDir) => {
      const args = needsDir ? [e.tree.dir(`mnt-${call}`)] : []
      await e.denial(procs(call, ...args), 'EPERM')
    })

    it('unshare(CLONE_NEWUSER)', async () => {
      await e.denial(procs('unshare-user'), 'EPERM')
    })

    it('clone(CLONE_NEWUSER)', async () => {
      await e.denial(procs('clone-user'), 'EPERM')
    })

    it('setns', async () => {
      await e.denial(procs('setns'), 'EPERM')
    })
  })

  describe('what the child inherits', () => {
    // Node marks inherited fds close-on-exec, so this shows the whole path is
    // tight; test/native/launcher-fds.test.ts hands the launcher a live fd.
    it(`an fd the caller inherited (fd ${INHERITED_FD}, an open secret file) does not reach the command`, async () => {
      const fd = openSync(e.tree.secretFile, 'r')
      try {
        await e.denial(procs('fd', String(INHERITED_FD)), 'EBADF', 'OK', { extraFd: fd })
      } finally {
        closeSync(fd)
      }
    })

    it('secret environment variables are dropped', async () => {
      const [confined, plain] = await e.both(['sh', '-c', 'echo "${GITHUB_TOKEN-unset} ${AWS_SECRET_ACCESS_KEY-unset}"'])
      expect(firstLine(confined.result!.stdout)).toBe('unset unset')
      expect(firstLine(plain.result!.stdout)).toBe(`${SECRET_ENV.GITHUB_TOKEN} ${SECRET_ENV.AWS_SECRET_ACCESS_KEY}`)
      expect(confined.result!.enforcement!.envDropped).toEqual(expect.arrayContaining(Object.keys(SECRET_ENV)))
    })

    it('TIOCSTI', async () => {
      await e.denial(procs('tiocsti', 'low'), 'EPERM')
    })

    it('TIOCSTI with junk in the upper 32 bits of the request (0xdeadbeef00005412)', async () => {
      await e.denial(procs('tiocsti', 'high'), 'EPERM')
    })

    it('RLIMIT_CORE is 0 and the nofile limit option is applied', async () => {
      const [confined, plain] = await e.both(procs('rlimit'), { options: { limits: { nofile: 64 } } })
      expect(firstLine(confined.result!.stdout)).toBe('OK core=0/0 nofile=64/64')
      expect(fields(firstLine(plain.result!.stdout)).nofile).not.toBe('64/64')
    })

    it('the command is a session leader (no controlling terminal of the caller)', async () => {
      await e.denial(procs('sid'), 'OK', 'NOTLEADER')
    })
  })
})
