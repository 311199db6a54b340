/**
 * Files (threat-model.md § Files): denied reads by every indirection, and
 * modifications outside the writable roots. Each probe is asserted twice:
 * the exact denial confined, and success when the same identity runs it
 * plainly.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { describeEscape, Escape, firstLine, outcomeOf } from '../../helpers/escape.js'
import { SECRET_TEXT, SSH_TEXT } from '../../helpers/tree.js'

const unique = () => randomBytes(6).toString('hex')

describeEscape('files', (identity, mode) => {
  let e: Escape
  const isRoot = identity.name === 'root'
  // Landlock denies with EACCES; namespace mode may answer EROFS for a read-only bind.
  const WRITE_DENIED = mode === 'landlock' ? ['EACCES'] : ['EACCES', 'EROFS']
  // Namespace mode masks denied paths (an empty 000 tmpfs): the lookup itself fails.
  const byMode = <T>(landlock: T, namespaces: T): T => (mode === 'landlock' ? landlock : namespaces)
  beforeAll(() => {
    e = new Escape(identity, mode, 'files')
  })
  afterAll(() => e?.cleanup())
  const files = (...args: string[]) => [e.probe('files'), ...args]

  describe('reading a denied path', () => {
    it('directly (explicit denyRead)', async () => {
      const [confined, plain] = await e.both(files('read', e.tree.secretFile))
      expect(outcomeOf(confined)).toBe('EACCES')
      expect(confined.result!.stdout).not.toContain(SECRET_TEXT)
      expect(firstLine(plain.result!.stdout)).toBe(`OK ${SECRET_TEXT}`)
    })

    it('directly (built-in secret ~/.ssh, HOME from the caller)', async () => {
      const [confined, plain] = await e.both(files('read', e.tree.sshKey))
      expect(outcomeOf(confined)).toBe('EACCES')
      expect(confined.result!.stdout).not.toContain(SSH_TEXT)
      expect(firstLine(plain.result!.stdout)).toBe(`OK ${SSH_TEXT}`)
    })

    it("a host device outside /dev/null, /dev/zero, … (root owns the raw disks: debugfs reads any denied file from them)", async () => {
      // /dev/ptmx: openable by every identity unconfined. Namespace mode has bwrap's own /dev,
      // where it is the sandbox's devpts; Landlock mode grants nothing under the host /dev but the allowlist.
      const [confined, plain] = await e.both(files('open', '/dev/ptmx'))
      expect(outcomeOf(plain)).toBe('OK')
      expect(outcomeOf(confined)).toBe(byMode('EACCES', 'OK'))
      if (mode === 'landlock') expect(confined.result!.enforcement!.notes.join('\n')).toContain('host devices are not readable')
    })

    it('through a symlink planted in the writable root', async () => {
      await e.denial(files('read-symlink', join(e.tree.work, `sl-${unique()}`), e.tree.secretFile), 'EACCES')
    })

    it('through a hard link planted in the writable root (the link itself is refused)', async () => {
      await e.denial(files('read-hardlink', join(e.tree.work, `hl-${unique()}`), e.tree.secretFile), byMode('EXDEV', 'EACCES'))
    })

    it('through .. from a directory fd', async () => {
      await e.denial(files('read-dotdot', e.tree.work, '../home/secret/key.txt'), 'EACCES')
    })

    it('through /proc/self/root', async () => {
      await e.denial(files('read', `/proc/self/root${e.tree.secretFile}`), 'EACCES')
    })

    it('through an O_PATH fd re-opened via /proc/self/fd', async () => {
      await e.denial(files('read-opath', e.tree.secretFile), 'EACCES')
    })

    it('through open_by_handle_at', async () => {
      // Unprivileged, the kernel itself refuses (no CAP_DAC_READ_SEARCH): the next test shows the filter.
      await e.denial(files('open-by-handle', e.tree.secretFile), byMode(['EPERM'], ['EPERM', 'EACCES']), isRoot ? 'OK' : 'EPERM')
    })

    it('open_by_handle_at is refused by the filter before the kernel looks at its arguments', async () => {
      await e.denial(files('open-by-handle-badfd'), 'EPERM', 'EBADF')
    })
  })

  describe('modifying outside the writable roots', () => {
    it('write to an existing file', async () => {
      await e.denial(files('write', e.tree.file(`outside/w-${unique()}`)), WRITE_DENIED)
    })

    it('create a file', async () => {
      await e.denial(files('create', join(e.tree.outside, `new-${unique()}`)), WRITE_DENIED)
    })

    it('unlink a file', async () => {
      await e.denial(files('unlink', e.tree.file(`outside/u-${unique()}`)), WRITE_DENIED)
    })

    it('rename a file', async () => {
      const from = e.tree.file(`outside/r-${unique()}`)
      await e.denial(files('rename', from, `${from}.moved`), WRITE_DENIED)
    })

    it('rename a file into the writable root', async () => {
      const from = e.tree.file(`outside/rw-${unique()}`)
      await e.denial(files('rename', from, join(e.tree.work, `moved-${unique()}`)), ['EXDEV', ...WRITE_DENIED])
    })

    it('truncate a file', async () => {
      await e.denial(files('truncate', e.tree.file(`outside/t-${unique()}`)), WRITE_DENIED)
    })

    it('mkdir', async () => {
      await e.denial(files('mkdir', join(e.tree.outside, `d-${unique()}`)), WRITE_DENIED)
    })

    it('mknod (regular file)', async () => {
      await e.denial(files('mknod', join(e.tree.outside, `n-${unique()}`)), WRITE_DENIED)
    })

    it('mkfifo', async () => {
      await e.denial(files('mkfifo', join(e.tree.outside, `f-${unique()}`)), WRITE_DENIED)
    })

    it('write through a symlink planted in the writable root', async () => {
      const target = e.tree.file(`outside/s-${unique()}`)
      await e.denial(files('write-symlink', join(e.tree.work, `out-${unique()}`), target), WRITE_DENIED)
    })

    it('chmod adding the setuid bit is refused by seccomp, even on files the caller owns', async () => {
      await e.denial(files('chmod', e.tree.file(`outside/c-${unique()}`), '4755'), 'EPERM')
    })

    // Landlock (ABI <= 7) has no right for chmod/utimes: in Landlock mode the
    // launcher's supervisor answers them (metadata.test.ts has every variant).
    it('plain chmod and utimes outside the write roots are denied', async () => {
      await e.denial(files('chmod', e.tree.file(`outside/p-${unique()}`), '600'), mode === 'landlock' ? 'EPERM' : WRITE_DENIED)
      await e.denial(files('utimes', e.tree.file(`outside/m-${unique()}`)), mode === 'landlock' ? 'EPERM' : WRITE_DENIED)
    })
  })

  describe('host locations', () => {
    it('host /tmp', async () => {
      // Namespace mode gives the sandbox a private /tmp: creating there is fine,
      // as long as nothing reaches the host's.
      const target = `/tmp/cordon-escape-${unique()}`
      try {
        const confined = await e.confined(files('touch', target))
        expect(byMode(WRITE_DENIED, ['OK', ...WRITE_DENIED])).toContain(outcomeOf(confined))
        expect(existsSync(target)).toBe(false)
        expect(outcomeOf(await e.unconfined(files('create', target)))).toBe('OK')
      } finally {
        rmSync(target, { force: true })
      }
    })

    it('/etc', async () => {
      await e.denial(files('create', `/etc/cordon-escape-${unique()}`), WRITE_DENIED, isRoot ? 'OK' : 'EACCES')
    })

    it('$HOME', async () => {
      await e.denial(files('create', join(e.tree.home, `rc-${unique()}`)), WRITE_DENIED)
    })

    it('/proc/sys (writing the current value back)', async () => {
      await e.denial(files('write-same', '/proc/sys/kernel/domainname'), WRITE_DENIED, isRoot ? 'OK' : 'EACCES')
    })

    it('/sys (writing the current value back)', async () => {
      await e.denial(files('write-same', '/sys/class/net/lo/tx_queue_len'), WRITE_DENIED, isRoot ? 'OK' : 'EACCES')
    })

    it('/sys/kernel/vmcoreinfo (the kernel\'s physical load address: a KASLR bypass, readable by every user)', async () => {
      // Namespace mode shows /sys/kernel as an empty read-only directory; Landlock
      // mode cannot take it back from a read root of / (docs/threat-model.md).
      const [confined, plain] = await e.both(files('read', '/sys/kernel/vmcoreinfo'))
      expect(outcomeOf(plain)).toBe('OK')
      expect(outcomeOf(confined)).toBe(byMode('OK', 'ENOENT'))
      if (mode === 'namespaces') expect(confined.result!.enforcement!.notes.join('\n')).toContain('/sys/kernel shown as an empty read-only directory')
    })
  })
})
