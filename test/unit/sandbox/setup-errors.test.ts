/**
 * Failures an unprivileged caller meets, driven through the escape driver as
 * that caller (root bypasses the permission checks involved): each must be
 * a typed cordon error naming where, never a raw Node error.
 */
import { chmodSync } from 'node:fs'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { identities } from '../../helpers/identity.js'
import { describeWhere } from '../../helpers/requirements.js'
import { runDriver } from '../../helpers/run-driver.js'
import { makeTree, type Tree } from '../../helpers/tree.js'

const caller = identities().find((i) => i.name === 'unprivileged')!

describeWhere(caller.missing, 'unprivileged caller', () => {
  let tree: Tree
  beforeAll(() => {
    tree = makeTree(caller, 'setup')
  })
  afterAll(() => tree?.cleanup())
  const env = () => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tree.home })

  it('a cwd the caller cannot enter → SetupError at step cwd (chdir, EACCES)', async () => {
    const cwd = tree.dir('no-search')
    chmodSync(cwd, 0o600)
    const reply = await runDriver(caller, { options: { cwd, profile: 'read-only', mode: 'landlock', compat: 'best-effort' }, command: ['true'] }, { env: env() })
    expect(reply.error).toMatchObject({ name: 'SetupError', code: 'E_SETUP', step: 'cwd', syscall: 'chdir', errnoCode: 'EACCES' })
    expect(reply.error!.message).toContain(cwd)
  })

  // A deny-read or protected path below a directory the caller cannot search
  // (HOME=/root for a service user, a 0700 dir of another user) keeps its
  // tail as written: the sandbox cannot reach it either.
  it('a HOME the caller cannot search does not break createSandbox', async () => {
    const home = tree.dir('locked-home')
    chmodSync(home, 0o000)
    const reply = await runDriver(
      caller,
      { options: { cwd: tree.work, profile: 'workspace-write', mode: 'landlock', compat: 'best-effort' }, command: ['true'] },
      { env: { ...env(), HOME: home } },
    )
    expect(reply.error).toBeUndefined()
    expect(reply.result!.exitCode).toBe(0)
  })
})
