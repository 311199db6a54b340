/**
 * sandbox.spawn(cmd, { tty }) with the real sandbox, in both modes: the
 * command runs on a pseudo-terminal of its own that cordon's launcher made
 * its controlling terminal (setsid + TIOCSCTTY before Landlock and
 * seccomp), inside the same confinement as any run. It sees a terminal on
 * 0–2, its window size and a resize (SIGWINCH), reads what is typed,
 * takes ^D as end of file, and a probe run in the session is still denied
 * — the same probe run unconfined succeeds.
 *
 * The sandbox runs in this process: as root here, as `cordon-probe` in
 * CI's unprivileged pass.
 */
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, expect, inject, it } from 'vitest'
import { createSandbox, PolicyError, type SandboxProcess } from '../../../../src/index.js'
import { itWhere, host } from '../../../helpers/requirements.js'
import { describeModes, removeTempDirs, tempDir } from '../orchestrator/env.js'

afterAll(removeTempDirs)

/** Resolves with all output so far once `text` has appeared in the terminal (10 s at most). */
function waitFor(p: SandboxProcess, text: string | RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => (off(), reject(new Error(`no ${String(text)} in ${JSON.stringify(out)}`))), 10_000)
    const off = p.terminal!.onData((c) => {
      out += c.toString('utf8')
      if (typeof text === 'string' ? out.includes(text) : text.test(out)) (clearTimeout(timer), off(), resolve(out))
    })
  })
}

describeModes((mode) => {
  it('the command sees a terminal on 0, 1 and 2 with the size asked for; a resize reaches it as SIGWINCH and the new size', async () => {
    const sb = createSandbox({ cwd: tempDir('tty-size'), mode })
    try {
      const script = 'trap "echo WINCH; stty size" WINCH; test -t 0 && test -t 1 && test -t 2 && echo TTY-ALL; stty size; echo READY; read x; echo done'
      const p = sb.spawn('sh', ['-c', script], { tty: { rows: 33, cols: 91 }, timeout: 20_000 })
      const first = await waitFor(p, 'READY')
      expect(first).toContain('TTY-ALL\r\n33 91\r\n')
      const resized = waitFor(p, /WINCH\r\n50 132\r\n/)
      p.terminal!.resize({ rows: 50, cols: 132 })
      await resized
      p.terminal!.write('\n')
      const r = await p
      expect(r.exitCode).toBe(0)
      expect(r.stdout).toContain('done')
      expect(r.stderr).toBe('')
    } finally {
      sb.close()
    }
  })

  it('typed input is read line by line and echoed by the terminal; eof() ends cat', async () => {
    const sb = createSandbox({ cwd: tempDir('tty-eof'), mode })
    try {
      const p = sb.spawn('cat', [], { tty: { rows: 24, cols: 80 }, timeout: 20_000 })
      const echoed = waitFor(p, 'hello\r\nhello\r\n') // the terminal's echo, then cat's copy
      p.terminal!.write('hello\n')
      await echoed
      p.terminal!.eof()
      const r = await p
      expect(r).toMatchObject({ exitCode: 0, timedOut: false })
    } finally {
      sb.close()
    }
  })

  it('a command that closes its terminal before it exits keeps its exit status (the terminal is not hung up under it)', async () => {
    const sb = createSandbox({ cwd: tempDir('tty-closer'), mode })
    try {
      // The shell is the session leader: it closes 0, 1, 2 and lives on. Hanging the terminal up
      // once its output ended (EIO at the master) sent it SIGHUP: "killed by SIGHUP", not exit 3.
      const r = await sb.spawn('sh', ['-c', 'echo ready; exec 0<&- 1>&- 2>&-; sleep 0.2; exit 3'], { tty: { rows: 24, cols: 80 }, timeout: 20_000 })
      expect(r).toMatchObject({ exitCode: 3, signal: null, timedOut: false })
      expect(r.stdout).toContain('ready')
    } finally {
      sb.close()
    }
  })

  it('a write outside the write roots is still denied inside the terminal session (and works unconfined)', async () => {
    const ws = tempDir('tty-deny-ws')
    const outside = tempDir('tty-deny-out')
    const sb = createSandbox({ cwd: ws, mode })
    const script = `echo x > ${join(outside, 'f')} && echo WROTE; echo END`
    try {
      const r = await sb.spawn('sh', ['-c', script], { tty: { rows: 24, cols: 80 }, timeout: 20_000 })
      expect(r.stdout).toMatch(/Permission denied|Read-only file system/)
      expect(r.stdout).not.toContain('WROTE')
    } finally {
      sb.close()
    }
    const plain = await promisify(execFile)('sh', ['-c', script])
    expect(plain.stdout).toBe('WROTE\nEND\n')
  })

  itWhere(host().compiler, 'TIOCSTI is still refused (EPERM) from inside the terminal session; the probe works unconfined', async () => {
    const probe = join(inject('cordonProbeDir'), 'probe-procs')
    const sb = createSandbox({ cwd: tempDir('tty-sti'), mode })
    try {
      const r = await sb.spawn(probe, ['tiocsti', 'low'], { tty: { rows: 24, cols: 80 }, timeout: 20_000 })
      expect(r.stdout.split('\r\n')[0]).toBe('EPERM')
    } finally {
      sb.close()
    }
    const plain = await promisify(execFile)(probe, ['tiocsti', 'low'])
    expect(plain.stdout.split('\n')[0]).toBe('OK')
  })

  it('bad terminal options are typed errors and start nothing', () => {
    const sb = createSandbox({ cwd: tempDir('tty-bad'), mode })
    try {
      expect(() => sb.spawn('true', [], { tty: { rows: 0, cols: 80 } })).toThrow(PolicyError)
      expect(() => sb.spawn('true', [], { tty: { rows: 24, cols: 80 }, stdin: 'pipe' })).toThrow(/does not apply to a run with `tty`/)
      expect(() => sb.spawn('true', [], { tty: { rows: 24, cols: 80 }, input: 'x' })).toThrow(PolicyError)
    } finally {
      sb.close()
    }
  })
})
