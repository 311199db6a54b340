/**
 * File metadata (threat-model.md § Files, issue 12): chmod, chown (group),
 * utimes, extended attributes and attribute flags (chattr's ioctls and
 * file_setattr), in every syscall variant. Beneath the
 * write root the call works and its effect is real; outside it is refused
 * — in Landlock mode by the supervisor's answer (EPERM), in namespace mode
 * by the read-only mount (EROFS) — and leaves the file as it was; the same
 * probe run plainly works, with the effect, so the probe is known to work.
 * Then the attacks on the Landlock-mode supervisor: a symlink or .. out of
 * the root, the path rewritten while the call is pending, a caller killed
 * mid-call, the set-id bits.
 */
import { randomBytes } from 'node:crypto'
import { lstatSync, statSync, symlinkSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { describeEscape, Escape, firstLine, outcomeOf } from '../../helpers/escape.js'
import { repoRoot } from '../../helpers/paths.js'
import type { Enforcement } from '../../../src/platform/enforcement.js'

const unique = () => randomBytes(6).toString('hex')

/** The times the probe's utimes family sets (metadata.c STAMP). */
const STAMP_MS = 1_000_000_000 * 1000
const XATTR = 'OK probe'

type Effect = 'mode' | 'ctime' | 'mtime' | 'xattr-set' | 'xattr-removed' | 'nodump'
interface Variant {
  call: string
  effect: Effect
  argv: (file: string) => string[]
}

const at = (f: string) => [dirname(f), basename(f)]
const VARIANTS: Variant[] = [
  { call: 'chmod', effect: 'mode', argv: (f) => ['chmod', f, '600'] },
  { call: 'fchmod (an fd opened read-only)', effect: 'mode', argv: (f) => ['fchmod', f, '600'] },
  { call: 'fchmodat (a dirfd)', effect: 'mode', argv: (f) => ['fchmodat', ...at(f), '600'] },
  { call: 'fchmodat2', effect: 'mode', argv: (f) => ['fchmodat2', ...at(f), '600', '0'] },
  { call: 'fchmodat2 AT_SYMLINK_NOFOLLOW', effect: 'mode', argv: (f) => ['fchmodat2', ...at(f), '600', 'nofollow'] },
  { call: 'chmod of /proc/self/fd/N (glibc lchmod before Linux 6.6)', effect: 'mode', argv: (f) => ['chmod-proc-fd', f, '600'] },
  { call: 'chown (to the own group)', effect: 'ctime', argv: (f) => ['chown', f] },
  { call: 'lchown', effect: 'ctime', argv: (f) => ['lchown', f] },
  { call: 'fchown', effect: 'ctime', argv: (f) => ['fchown', f] },
  { call: 'fchownat', effect: 'ctime', argv: (f) => ['fchownat', ...at(f), '0'] },
  { call: 'fchownat AT_SYMLINK_NOFOLLOW', effect: 'ctime', argv: (f) => ['fchownat', ...at(f), 'nofollow'] },
  { call: 'utime', effect: 'mtime', argv: (f) => ['utime', f] },
  { call: 'utimes', effect: 'mtime', argv: (f) => ['utimes', f] },
  { call: 'futimesat', effect: 'mtime', argv: (f) => ['futimesat', ...at(f)] },
  { call: 'utimensat', effect: 'mtime', argv: (f) => ['utimensat', ...at(f), '0'] },
  { call: 'utimensat AT_SYMLINK_NOFOLLOW', effect: 'mtime', argv: (f) => ['utimensat', ...at(f), 'nofollow'] },
  { call: 'futimens (utimensat on an fd, path NULL)', effect: 'mtime', argv: (f) => ['futimens', f] },
  { call: 'setxattr', effect: 'xattr-set', argv: (f) => ['setxattr', f] },
  { call: 'lsetxattr', effect: 'xattr-set', argv: (f) => ['lsetxattr', f] },
  { call: 'fsetxattr', effect: 'xattr-set', argv: (f) => ['fsetxattr', f] },
  { call: 'setxattrat (Linux 6.13)', effect: 'xattr-set', argv: (f) => ['setxattrat', ...at(f), '0'] },
  { call: 'removexattr', effect: 'xattr-removed', argv: (f) => ['removexattr', f] },
  { call: 'lremovexattr', effect: 'xattr-removed', argv: (f) => ['lremovexattr', f] },
  { call: 'fremovexattr', effect: 'xattr-removed', argv: (f) => ['fremovexattr', f] },
  { call: 'removexattrat (Linux 6.13)', effect: 'xattr-removed', argv: (f) => ['removexattrat', ...at(f), '0'] },
  { call: 'ioctl FS_IOC_SETFLAGS (chattr +d)', effect: 'nodump', argv: (f) => ['setflags', f] },
  { call: 'ioctl FS_IOC_SETFLAGS with the high bits of the request word set', effect: 'nodump', argv: (f) => ['setflags-high', f] },
  { call: 'ioctl FS_IOC_FSSETXATTR', effect: 'nodump', argv: (f) => ['fssetxattr', f] },
  { call: 'file_setattr (Linux 6.17)', effect: 'nodump', argv: (f) => ['file-setattr', ...at(f), '0'] },
]

describeEscape('file metadata', (identity, mode) => {
  let e: Escape
  // Landlock mode: the supervisor's answer; namespace mode: the read-only mount.
  const DENIED = mode === 'landlock' ? 'EPERM' : 'EROFS'
  beforeAll(() => {
    e = new Escape(identity, mode, 'metadata')
  })
  afterAll(() => e?.cleanup())
  const probe = (...args: string[]) => [e.probe('metadata'), ...args]
  const xattrOf = async (f: string) => firstLine((await e.unconfined(probe('getxattr', f))).result!.stdout)

  /** A fresh file (owned by the identity), with the xattr already set when the call removes it. */
  async function fileFor(where: 'work' | 'outside', effect: Effect): Promise<{ path: string; ctimeMs: number }> {
    const path = e.tree.file(`${where}/m-${unique()}`)
    if (effect === 'xattr-removed') expect(outcomeOf(await e.unconfined(probe('setxattr', path)))).toBe('OK')
    return { path, ctimeMs: statSync(path).ctimeMs }
  }

  /** Whether the call's effect is on the file now. */
  async function changed(f: { path: string; ctimeMs: number }, effect: Effect): Promise<boolean> {
    const st = statSync(f.path)
    if (effect === 'mode') return (st.mode & 0o777) === 0o600
    if (effect === 'ctime') return st.ctimeMs !== f.ctimeMs
    if (effect === 'mtime') return st.mtimeMs === STAMP_MS
    if (effect === 'nodump') return firstLine((await e.unconfined(probe('getflags', f.path))).result!.stdout) === 'OK 1'
    const x = await xattrOf(f.path)
    return effect === 'xattr-set' ? x === XATTR : x === 'ENODATA'
  }

  describe.each(VARIANTS)('$call', ({ effect, argv }) => {
    it('beneath the write root: works, and the effect is real', async () => {
      const f = await fileFor('work', effect)
      expect(outcomeOf(await e.confined(probe(...argv(f.path))))).toBe('OK')
      expect(await changed(f, effect)).toBe(true)
    })

    it(`outside the write roots: ${DENIED}, the file unchanged; unconfined the same probe works`, async () => {
      const [f, plain] = [await fileFor('outside', effect), await fileFor('outside', effect)]
      expect(outcomeOf(await e.confined(probe(...argv(f.path))))).toBe(DENIED)
      expect(await changed(f, effect)).toBe(false)
      expect(outcomeOf(await e.unconfined(probe(...argv(plain.path))))).toBe('OK')
      expect(await changed(plain, effect)).toBe(true)
    })
  })

  describe('ways out of the write root', () => {
    it('a symlink planted in the write root, pointing outside: chmod follows it and is refused', async () => {
      const [target, plainTarget] = [e.tree.file(`outside/t-${unique()}`), e.tree.file(`outside/t-${unique()}`)]
      expect(outcomeOf(await e.confined(probe('chmod-symlink', join(e.tree.work, `l-${unique()}`), target, '600')))).toBe(DENIED)
      expect(statSync(target).mode & 0o777).toBe(0o644)
      expect(outcomeOf(await e.unconfined(probe('chmod-symlink', join(e.tree.work, `l-${unique()}`), plainTarget, '600')))).toBe('OK')
      expect(statSync(plainTarget).mode & 0o777).toBe(0o600)
    })

    it('lchown of that symlink acts on the link in the write root, not on its target', async () => {
      const target = e.tree.file(`outside/t-${unique()}`)
      const link = join(e.tree.work, `l-${unique()}`)
      expect(outcomeOf(await e.confined(probe('chmod-symlink', link, target, '600')))).toBe(DENIED) // plants the link
      const [linkBefore, targetBefore] = [lstatSync(link).ctimeMs, statSync(target).ctimeMs]
      expect(outcomeOf(await e.confined(probe('lchown', link)))).toBe('OK')
      expect(lstatSync(link).ctimeMs).not.toBe(linkBefore)
      expect(statSync(target).ctimeMs).toBe(targetBefore)
    })

    it('fchmodat2 AT_SYMLINK_NOFOLLOW on a symlink is EOPNOTSUPP, as the kernel says unconfined', async () => {
      const link = join(e.tree.work, `l-${unique()}`)
      symlinkSync(e.tree.file(`outside/t-${unique()}`), link)
      await e.denial(probe('fchmodat2', ...at(link), '600', 'nofollow'), 'EOPNOTSUPP', 'EOPNOTSUPP')
    })

    it('.. from the working directory', async () => {
      const target = e.tree.file(`outside/d-${unique()}`)
      expect(outcomeOf(await e.confined(probe('chmod', `../outside/${basename(target)}`, '600')))).toBe(DENIED)
      expect(statSync(target).mode & 0o777).toBe(0o644)
    })

    it('the path rewritten by another thread while the call is pending (the TOCTOU that SECCOMP_USER_NOTIF_FLAG_CONTINUE would open)', async () => {
      // Same length: work/ + race + 12 hex, outside/ + r + 12 hex.
      const u = unique()
      const [inside, outside] = [e.tree.file(`work/race${u}`), e.tree.file(`outside/r${u}`)]
      expect(inside.length).toBe(outside.length)
      expect(firstLine((await e.confined(probe('race-chmod', inside, outside, '12000'))).result!.stdout)).toBe('HELD')
      expect(statSync(outside).mode & 0o777).toBe(0o644)
      // Unconfined, the same probe reaches the outside file: it does race (more
      // calls: a plain chmod takes a microsecond, the flipper must get a turn).
      expect(firstLine((await e.unconfined(probe('race-chmod', inside, outside, '200000'))).result!.stdout)).toBe('ESCAPED')
    })

    it('callers killed mid-call (SIGKILL while chmod waits for its answer): the next call is still answered', async () => {
      const f = e.tree.file(`work/k-${unique()}`)
      expect(outcomeOf(await e.confined(probe('kill-midway', f, '100', '600')))).toBe('OK')
      expect(statSync(f).mode & 0o777).toBe(0o600)
    })

    it('the setuid bit is refused beneath the write root too', async () => {
      const f = e.tree.file(`work/s-${unique()}`)
      expect(outcomeOf(await e.confined(probe('chmod', f, '4755')))).toBe('EPERM')
      expect(statSync(f).mode & 0o7777).toBe(0o644)
      expect(outcomeOf(await e.unconfined(probe('chmod', e.tree.file(`work/s-${unique()}`), '4755')))).toBe('OK')
    })
  })

  describe('cordon inside cordon (no listener can be had: the outer filter refuses NEW_LISTENER)', () => {
    const CLI = join(repoRoot, 'bin', 'cordon.js')
    const inner = (...command: string[]) => [process.execPath, CLI, 'run', '--mode', 'landlock', '--json', '--cwd', e.tree.work, '--', ...command]
    const parsed = (reply: Awaited<ReturnType<Escape['confined']>>) => JSON.parse(reply.result!.stdout) as { exitCode?: number; stdout?: string; enforcement?: Enforcement; error?: { step: string; errnoCode: string; message: string } }

    if (mode === 'namespaces') {
      it('the inner Landlock-mode run refuses every metadata call, write root included, and its report says so', async () => {
        const f = e.tree.file(`work/n-${unique()}`)
        const out = parsed(await e.confined(inner(e.probe('metadata'), 'chmod', f, '600')))
        expect(out.stdout?.trim(), JSON.stringify(out)).toBe('EPERM')
        expect(statSync(f).mode & 0o777).toBe(0o644)
        expect(out.enforcement!.platform).toMatchObject({ os: 'linux', metadataCalls: 'refuse-all' })
        expect(out.enforcement!.notes.join('\n')).toMatch(/refused everywhere, write roots included: no seccomp listener/)
        expect(out.enforcement!.notes.join('\n')).not.toMatch(/are decided by the supervisor/)
        // The same inner run, not nested: the supervisor answers, the chmod works.
        const plain = parsed(await e.unconfined(inner(e.probe('metadata'), 'chmod', f, '600')))
        expect(plain.stdout?.trim(), JSON.stringify(plain)).toBe('OK')
        expect(plain.enforcement!.platform).toMatchObject({ metadataCalls: 'supervised' })
      })
    } else {
      it("the inner Landlock-mode run cannot list '/' (the outer hides it above denied paths): a setup error at planning, not EACCES at execve", async () => {
        const out = parsed(await e.confined(inner('true')))
        expect(out.error, JSON.stringify(out)).toMatchObject({ step: 'plan', errnoCode: 'EACCES' })
        expect(out.error!.message).toMatch(/cannot list \/, which holds a denied path.*run the outer sandbox in namespace mode/)
        const plain = parsed(await e.unconfined(inner('true')))
        expect(plain.error, JSON.stringify(plain)).toBeUndefined()
        expect(plain.exitCode).toBe(0)
      })
    }
  })

  describe('the report', () => {
    it('file-metadata is not listed missing', async () => {
      const reply = await e.confined(['true'])
      expect(reply.result!.enforcement!.missing.map((m) => m.protection)).not.toContain('file-metadata')
    })

    it("compat 'hard' no longer refuses it (a profile without protected paths, which Landlock mode lacks)", async () => {
      // No process limit: a caller without a delegated cgroup could not apply it, and 'hard' would refuse that.
      const profile = { filesystem: { read: 'all', write: ['${cwd}'] }, network: 'off', limits: { pids: 'max' } }
      const reply = await e.confined(probe('chmod', e.tree.file(`work/h-${unique()}`), '600'), { options: { compat: 'hard', profile } })
      expect(outcomeOf(reply)).toBe('OK')
      expect(reply.result!.enforcement!.status).toBe('full')
    })
  })
})
