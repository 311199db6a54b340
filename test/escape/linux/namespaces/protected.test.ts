/**
 * Persistence inside writable roots (threat-model.md § Files): protected
 * paths stay read-only in namespace mode, a protected path that does not
 * exist cannot be created, the directories above them cannot be renamed
 * away — and ordinary git still works in the workspace.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { Escape, outcomeOf } from '../../../helpers/escape.js'
import { identities } from '../../../helpers/identity.js'
import { namespacesMissing } from '../../../helpers/modes.js'
import { describeWhere, firstMissing, host } from '../../../helpers/requirements.js'
import { visibleProbes } from './ns-available.js'

const GIT = ['-c', 'user.name=cordon', '-c', 'user.email=cordon@example.invalid', '-c', 'init.defaultBranch=main']

describe.each(identities())('protected paths (namespace mode) — caller: $name', (identity) => {
  describeWhere(firstMissing(namespacesMissing(identity), host().compiler), 'bwrap', () => {
    let e: Escape
    let probes: ReturnType<typeof visibleProbes>
    const files = (...args: string[]) => [probes.path('files'), ...args]
    const w = (rel: string) => join(e.tree.work, rel)
    beforeAll(() => {
      e = new Escape(identity, 'namespaces', 'protect')
      probes = visibleProbes(inject('cordonProbeDir'))
      e.tree.dir('work/repo')
      const [file, ...args] = identity.wrap(['git', ...GIT, 'init', '-q', join(e.tree.work, 'repo')])
      const r = spawnSync(file!, args, { encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: e.tree.home } })
      expect(r.status, r.stderr).toBe(0)
    })
    afterAll(() => {
      e?.cleanup()
      probes?.cleanup()
    })
    const inRepo = (extra: Record<string, unknown> = {}) => ({ options: { cwd: w('repo'), ...extra } })

    it('the run is in namespace mode with nothing missing', async () => {
      // No process limit: a caller without a delegated cgroup could not apply it (listed missing).
      const r = await e.confined(['/bin/true'], inRepo({ limits: { pids: 'max' } }))
      expect(r.error).toBeUndefined()
      expect(r.result!.enforcement).toMatchObject({ mode: 'namespaces', status: 'full', missing: [] })
    })

    it('.git/hooks cannot be written (a hook would run on the host at the next commit)', async () => {
      const [confined, plain] = await e.both(files('create', w('repo/.git/hooks/pre-commit')), inRepo())
      expect(outcomeOf(confined)).toBe('EROFS')
      expect(outcomeOf(plain)).toBe('OK')
    })

    it('.git/config cannot be appended to (core.hooksPath, core.fsmonitor, aliases run code)', async () => {
      const before = readFileSync(w('repo/.git/config'), 'utf8')
      const confined = await e.confined(files('write', w('repo/.git/config')), inRepo())
      expect(outcomeOf(confined)).toBe('EROFS')
      expect(readFileSync(w('repo/.git/config'), 'utf8')).toBe(before)
    })

    it('.git cannot be renamed away to step around the masks below it', async () => {
      const confined = await e.confined(files('rename', w('repo/.git'), w('repo/.git-old')), inRepo())
      expect(outcomeOf(confined)).toBe('EBUSY')
      expect(existsSync(w('repo/.git/config'))).toBe(true)
    })

    it('a protected file that does not exist yet cannot be created (.bashrc), and nothing is left behind', async () => {
      const confined = await e.confined(files('create', w('repo/.bashrc')), inRepo())
      // EEXIST: the path exists inside, as an empty read-only directory (the placeholder).
      expect(['EEXIST', 'EISDIR', 'EROFS']).toContain(outcomeOf(confined))
      expect(existsSync(w('repo/.bashrc'))).toBe(false) // and the placeholder is gone after the run
      expect(outcomeOf(await e.unconfined(files('create', w('repo/.bashrc'))))).toBe('OK')
    })

    it('nor one below a missing directory (.vscode/tasks.json), as a file or a directory', async () => {
      expect(outcomeOf(await e.confined(files('create', w('repo/.vscode/tasks.json')), inRepo()))).toBe('EROFS')
      expect(['EEXIST', 'EROFS']).toContain(outcomeOf(await e.confined(files('mkdir', w('repo/.vscode')), inRepo())))
      expect(existsSync(w('repo/.vscode'))).toBe(false)
    })

    it('a missing hooks directory in an existing repository cannot be created either', async () => {
      e.tree.dir('work/bare-hooks')
      const [file, ...args] = identity.wrap(['git', ...GIT, 'init', '-q', '--template=', w('bare-hooks')])
      expect(spawnSync(file!, args).status).toBe(0)
      expect(existsSync(w('bare-hooks/.git/hooks'))).toBe(false)
      const r = await e.confined(files('mkdir', w('bare-hooks/.git/hooks')), { options: { cwd: w('bare-hooks') } })
      expect(['EEXIST', 'EROFS']).toContain(outcomeOf(r))
      expect(existsSync(w('bare-hooks/.git/hooks'))).toBe(false)
    })

    it('a denied path that does not exist inside the workspace cannot be created', async () => {
      const confined = await e.confined(files('create', w('repo/.env')), inRepo({ denyRead: [w('repo/.env')] }))
      expect(['EEXIST', 'EACCES', 'EROFS']).toContain(outcomeOf(confined))
      expect(existsSync(w('repo/.env'))).toBe(false)
    })

    it('git add and git commit work in the workspace (index.lock, objects, refs)', async () => {
      const script = `echo one > f && git ${GIT.join(' ')} add f && git ${GIT.join(' ')} commit -qm one && git log --format=%s`
      const r = await e.confined(['/bin/sh', '-c', script], inRepo())
      expect(r.result?.stderr ?? r.error).toBe('')
      expect(r.result!.exitCode).toBe(0)
      expect(r.result!.stdout.trim()).toBe('one')
    })

    it('git init && git add && git commit work in a fresh workspace', async () => {
      e.tree.dir('work/fresh')
      const script = `git ${GIT.join(' ')} init -q && echo a > a && git add a && git ${GIT.join(' ')} commit -qm first && git log --format=%s`
      const r = await e.confined(['/bin/sh', '-c', script], { options: { cwd: w('fresh') } })
      expect(r.result?.exitCode, JSON.stringify(r)).toBe(0)
      expect(r.result!.stdout.trim()).toBe('first')
      expect(r.result!.enforcement!.notes.join()).toContain('no git repository')
      // No placeholder is left in the new repository or the workspace.
      expect(readdirSync(w('fresh')).sort()).toEqual(['.git', 'a'])
    })

    it('the next launch protects the repository the previous one created', async () => {
      e.tree.dir('work/later')
      const init = await e.confined(['/bin/sh', '-c', `git ${GIT.join(' ')} init -q`], { options: { cwd: w('later') } })
      expect(init.result?.exitCode).toBe(0)
      const r = await e.confined(files('create', w('later/.git/hooks/post-checkout')), { options: { cwd: w('later') } })
      expect(outcomeOf(r)).toBe('EROFS')
    })

    it('a hard link made to .git/config before the repository was protected: the next launch refuses', async () => {
      // Red team: run 1 (no repository yet, so nothing protected) runs git init and links
      // .git/config under another name; run 2 wrote core.fsmonitor through the link.
      e.tree.dir('work/linked')
      const plant = await e.confined(['/bin/sh', '-c', `git ${GIT.join(' ')} init -q && ln .git/config cfg-link`], { options: { cwd: w('linked') } })
      expect(plant.result?.exitCode, JSON.stringify(plant)).toBe(0)
      const r = await e.confined(['/bin/sh', '-c', 'echo "[core] fsmonitor = touch pwned" >> cfg-link'], { options: { cwd: w('linked') } })
      expect(r.error).toMatchObject({ code: 'E_POLICY' })
      expect(r.error!.message).toContain('.git/config has 2 hard links')
      expect(readFileSync(w('linked/.git/config'), 'utf8')).not.toContain('fsmonitor')
    })

    it('a .git/commondir the command writes (it would redirect config and hooks) is removed after the run, and said', async () => {
      // Red team: commondir named a directory with a config setting core.fsmonitor, which
      // the next host `git status` ran. It cannot be masked (git must read it): removed after the run.
      const plant = `mkdir -p .git/x/hooks && cp -r .git/HEAD .git/objects .git/refs .git/x/ && printf '[core]\\n\\tfsmonitor = "touch ${w('pwned')}; false"\\n' > .git/x/config && echo x > .git/commondir && cat .git/commondir`
      const r = await e.confined(['/bin/sh', '-c', plant], inRepo())
      expect(r.result?.exitCode, JSON.stringify(r)).toBe(0)
      expect(r.result!.stdout).toBe('x\n') // the command did write it
      expect(existsSync(w('repo/.git/commondir'))).toBe(false)
      expect(r.result!.enforcement!.notes.join('\n')).toContain(`removed ${w('repo/.git/commondir')}`)
      const [file, ...args] = identity.wrap(['git', '-C', w('repo'), 'status', '--porcelain'])
      const host = spawnSync(file!, args, { encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: e.tree.home } })
      expect(host.status, host.stderr).toBe(0)
      expect(existsSync(w('pwned'))).toBe(false)
    })

    it('a worktree-style .git file cannot be re-pointed, and its real hooks stay read-only', async () => {
      e.tree.dir('work/wt')
      e.tree.file('work/wt/.git', `gitdir: ${w('repo/.git')}\n`)
      // The gitdir lies in another write root: its hooks must be protected there too.
      const opts = { options: { cwd: w('wt'), write: [w('repo')] } }
      expect(outcomeOf(await e.confined(files('write', w('wt/.git')), opts))).toBe('EROFS')
      expect(outcomeOf(await e.confined(files('create', w('repo/.git/hooks/pre-push')), opts))).toBe('EROFS')
    })
  })
})
