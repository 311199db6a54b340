/**
 * openNoFollow(): the descriptor a namespace-mode bind source is passed to
 * bwrap by (--bind-fd). It must refuse any symlink on the way — the reason it
 * exists: a sandbox still running in the same workspace can swap a pinned
 * directory for a link to ~/.ssh between cordon's checks and the mount.
 */
import { mkdirSync, mkdtempSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadNative } from '../../src/native/load.js'

const { binding } = loadNative()
const w = mkdtempSync(join(tmpdir(), 'cordon-nofollow-'))
afterAll(() => rmSync(w, { recursive: true, force: true }))
mkdirSync(join(w, 'dir/sub'), { recursive: true })
writeFileSync(join(w, 'dir/file'), 'x')
symlinkSync(join(w, 'dir'), join(w, 'link'))
symlinkSync(join(w, 'dir/file'), join(w, 'dir/filelink'))

/** The errno name openNoFollow threw with. */
function refusal(path: string): string {
  try {
    binding.close(binding.openNoFollow(path))
    return 'opened'
  } catch (e) {
    return (e as { code?: string }).code ?? String(e)
  }
}

describe('openNoFollow', () => {
  it('opens directories and files reached without a link: the fd is that object, never 0-2', () => {
    for (const p of [join(w, 'dir/sub'), join(w, 'dir/file'), '/']) {
      const fd = binding.openNoFollow(p)
      try {
        expect(fd).toBeGreaterThan(2)
        expect(readlinkSync(`/proc/self/fd/${fd}`)).toBe(p)
        expect(statSync(`/proc/self/fd/${fd}`).ino).toBe(statSync(p).ino)
      } finally {
        binding.close(fd)
      }
    }
  })

  it('refuses a symlink anywhere on the way: in the middle, or as the last component (ELOOP)', () => {
    expect(refusal(join(w, 'link/sub'))).toBe('ELOOP')
    expect(refusal(join(w, 'link'))).toBe('ELOOP')
    expect(refusal(join(w, 'dir/filelink'))).toBe('ELOOP')
  })

  it('refuses a file in the middle (ENOTDIR), a missing component (ENOENT), `..` and relative paths (EINVAL)', () => {
    expect(refusal(join(w, 'dir/file/x'))).toBe('ENOTDIR')
    expect(refusal(join(w, 'dir/none'))).toBe('ENOENT')
    expect(refusal(`${w}/dir/../dir`)).toBe('EINVAL')
    expect(refusal('dir/sub')).toBe('EINVAL')
    expect(() => binding.openNoFollow(`${w}\0x`)).toThrow(TypeError)
  })
})
