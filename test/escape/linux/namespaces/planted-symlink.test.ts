/**
 * A symlink planted for the *next* launch (threat-model.md § Files): one run
 * plants a link inside the workspace where a later setup would mount (a
 * protected path, a mask, a gitdir). The later launch must refuse, not
 * follow it onto the host — and must leave the link's target untouched.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Escape } from '../../../helpers/escape.js'
import { identities } from '../../../helpers/identity.js'
import { namespacesMissing } from '../../../helpers/modes.js'
import { describeWhere } from '../../../helpers/requirements.js'

describe.each(identities())('planted symlinks (namespace mode) — caller: $name', (identity) => {
  describeWhere(namespacesMissing(identity), 'bwrap', () => {
    let e: Escape
    beforeAll(() => {
      e = new Escape(identity, 'namespaces', 'planted')
      e.tree.file('outside/target-file', 'HOST FILE\n')
      e.tree.dir('outside/target-dir')
    })
    afterAll(() => e?.cleanup())

    /** The earlier run, in its own workspace: Landlock mode does not protect these paths, so it can plant the link. */
    async function plant(cwd: string, link: string, target: string): Promise<void> {
      const r = await e.confined(['/bin/ln', '-s', target, link], { options: { mode: 'landlock', cwd } })
      expect(r.result?.exitCode, JSON.stringify(r)).toBe(0)
    }

    it('a protected file replaced by a symlink (.bashrc → host file): the next launch refuses', async () => {
      const cwd = e.tree.dir('work/rc')
      await plant(cwd, join(cwd, '.bashrc'), join(e.tree.outside, 'target-file'))
      const r = await e.confined(['/bin/true'], { options: { cwd } })
      expect(r.error).toMatchObject({ code: 'E_POLICY' })
      expect(r.error!.message).toContain('symlink')
      expect(readFileSync(join(e.tree.outside, 'target-file'), 'utf8')).toBe('HOST FILE\n')
    })

    it('a directory above a protected path replaced by a symlink (.vscode → host dir): refused, nothing created there', async () => {
      const cwd = e.tree.dir('work/vs')
      await plant(cwd, join(cwd, '.vscode'), join(e.tree.outside, 'target-dir'))
      const r = await e.confined(['/bin/true'], { options: { cwd } })
      expect(r.error).toMatchObject({ code: 'E_POLICY' })
      expect(readdirSync(join(e.tree.outside, 'target-dir'))).toEqual([])
    })

    it('a denied path reached through a planted symlink: refused', async () => {
      const cwd = e.tree.dir('work/deny')
      await plant(cwd, join(cwd, 'data'), join(e.tree.outside, 'target-dir'))
      const r = await e.confined(['/bin/true'], { options: { cwd, denyRead: [join(cwd, 'data/secret')] } })
      expect(r.error).toMatchObject({ code: 'E_POLICY' })
      expect(existsSync(join(e.tree.outside, 'target-dir', 'secret'))).toBe(false)
    })

    it('a .git file whose gitdir goes through a planted symlink: refused', async () => {
      const cwd = e.tree.dir('work/sub')
      await plant(cwd, join(cwd, 'link'), join(e.tree.outside, 'target-dir'))
      e.tree.file('work/sub/.git', 'gitdir: link/.git\n')
      const r = await e.confined(['/bin/true'], { options: { cwd } })
      expect(r.error).toMatchObject({ code: 'E_POLICY' })
      expect(r.error!.message).toContain('symlink')
    })
  })
})
