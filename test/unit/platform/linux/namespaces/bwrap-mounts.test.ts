/**
 * The namespace-mode mount plan: order, pins above protected paths,
 * placeholders for missing ones, masks for denied paths, and what is left
 * alone (read-only already, or inside a private tmpfs).
 */
import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { PolicyError } from '../../../../../src/errors.js'
import { bwrapArgs, fdSources } from '../../../../../src/platform/linux/namespaces/bwrap-args.js'
import { planMounts } from '../../../../../src/platform/linux/namespaces/bwrap-mounts.js'

let w: string
beforeEach(() => {
  // Outside /tmp: paths under the private /tmp are planned differently (see the last test).
  w = mkdtempSync(join(process.cwd(), '.cordon-test-mounts-'))
  mkdirSync(join(w, '.git/hooks'), { recursive: true })
  writeFileSync(join(w, '.git/config'), '[core]\n')
  mkdirSync(join(w, 'secret'))
  writeFileSync(join(w, 'token'), 'x')
})
afterEach(() => rmSync(w, { recursive: true, force: true }))

const kinds = (plan: ReturnType<typeof planMounts>) => plan.ops.map((o) => `${o.kind} ${o.path.replace(w, 'W')}`)

describe('planMounts', () => {
  it('binds write roots, pins the directories above protected paths, then protects, then masks', () => {
    const plan = planMounts({ writeRoots: [w], protectedPaths: [join(w, '.git/hooks'), join(w, '.git/config')], denyRead: [join(w, 'secret'), join(w, 'token')] })
    const ops = kinds(plan).filter((o) => !o.startsWith('tmpfs'))
    expect(ops).toEqual(['mask /sys/kernel', 'bind W', 'bind W/.git', 'ro-bind W/.git/hooks', 'ro-bind W/.git/config', 'deny-dir W/secret', 'deny-file W/token'])
    expect(plan.placeholders).toEqual([])
  })

  it('masks /sys/kernel unless a read root lies at or below it (or a write root covers it)', () => {
    const masked = (input: { readRoots?: string[]; writeRoots?: string[] }) => planMounts({ writeRoots: [w, ...(input.writeRoots ?? [])], protectedPaths: [], denyRead: [], readRoots: input.readRoots ?? [] }).masked
    expect(masked({})).toEqual(['/sys/kernel'])
    expect(masked({ readRoots: ['/usr', '/sys'] })).toEqual(['/sys/kernel'])
    expect(masked({ readRoots: ['/sys/kernel/mm'] })).toEqual([])
    expect(masked({ writeRoots: ['/sys'] })).toEqual([])
  })

  it('refuses a protected file that has another name (a hard link made while it was not protected), in a protected tree too', () => {
    const plan = () => planMounts({ writeRoots: [w], protectedPaths: [join(w, '.git/hooks'), join(w, '.git/config')], denyRead: [] })
    expect(plan).not.toThrow()
    linkSync(join(w, '.git/config'), join(w, 'cfg-link'))
    expect(plan).toThrow(PolicyError)
    expect(plan).toThrow(/\.git\/config has 2 hard links/)
    rmSync(join(w, 'cfg-link'))
    writeFileSync(join(w, '.git/hooks/pre-commit'), '#!/bin/sh\n')
    expect(plan).not.toThrow()
    linkSync(join(w, '.git/hooks/pre-commit'), join(w, 'hook-link'))
    expect(plan).toThrow(/hooks\/pre-commit has 2 hard links/)
  })

  it('fails closed on a protected tree too large to check for hard links', () => {
    for (let i = 0; i < 4100; i++) writeFileSync(join(w, `.git/hooks/h${i}`), '')
    expect(() => planMounts({ writeRoots: [w], protectedPaths: [join(w, '.git/hooks')], denyRead: [] })).toThrow(/more than 4096 entries/)
  })

  it('a missing protected path gets a placeholder at its first missing component', () => {
    const plan = planMounts({ writeRoots: [w], protectedPaths: [join(w, '.vscode/tasks.json'), join(w, '.bashrc')], denyRead: [] })
    expect(kinds(plan)).toContain('ro-placeholder W/.vscode')
    expect(kinds(plan)).toContain('ro-placeholder W/.bashrc')
    expect(plan.placeholders.sort()).toEqual([join(w, '.bashrc'), join(w, '.vscode')])
  })

  it('a missing denied path inside a write root is masked so it cannot be created; outside, it is left alone', () => {
    const plan = planMounts({ writeRoots: [w], protectedPaths: [], denyRead: [join(w, '.aws/credentials'), '/nonexistent-cordon/secret'] })
    expect(kinds(plan)).toContain('deny-dir W/.aws')
    expect(plan.ops.some((o) => o.path.startsWith('/nonexistent-cordon'))).toBe(false)
  })

  it('protected paths outside every write root need nothing (the host view is read-only)', () => {
    const plan = planMounts({ writeRoots: [w], protectedPaths: ['/etc/hostname'], denyRead: [] })
    expect(plan.ops.some((o) => o.path === '/etc/hostname')).toBe(false)
  })

  it('a mask below another mask is dropped, and a deny wins over a protected path', () => {
    const plan = planMounts({ writeRoots: [w], protectedPaths: [join(w, 'secret')], denyRead: [join(w, 'secret'), join(w, 'secret/inner')] })
    expect(kinds(plan).filter((o) => o.includes('secret'))).toEqual(['deny-dir W/secret'])
  })

  it('refuses a path that became a symlink after resolution', () => {
    symlinkSync('/etc', join(w, 'planted'))
    expect(() => planMounts({ writeRoots: [w], protectedPaths: [join(w, 'planted')], denyRead: [] })).toThrow(PolicyError)
  })

  it('private tmpfs on /tmp unless a write root covers it; host paths under it are not masked', () => {
    const plan = planMounts({ writeRoots: [w], protectedPaths: [], denyRead: [join(tmpdir(), 'cordon-nothing-here')] })
    expect(plan.privateDirs).toContain('/tmp')
    expect(plan.ops[0]).toEqual({ kind: 'tmpfs', path: '/tmp' })
    expect(plan.ops.some((o) => o.path.includes('cordon-nothing-here'))).toBe(false)
    expect(planMounts({ writeRoots: ['/tmp'], protectedPaths: [], denyRead: [] }).privateDirs).not.toContain('/tmp')
  })
})

describe('bwrapArgs', () => {
  it('puts namespaces first, then the host view, the plan order, and the launcher with fds 3 and 4', () => {
    const args = bwrapArgs({
      features: { disableUserns: true, cgroupTry: true, bindFd: true },
      networkOff: true,
      ops: [{ kind: 'bind', path: '/w' }, { kind: 'ro-bind', path: '/w/.git/hooks' }, { kind: 'deny-dir', path: '/w/s' }, { kind: 'deny-file', path: '/w/f' }, { kind: 'ro-placeholder', path: '/w/.bashrc' }],
      launcher: '/x/cordon-launcher',
    })
    const s = args.join(' ')
    expect(s).toMatch(/^--unshare-user --unshare-pid --unshare-ipc --unshare-uts --unshare-cgroup-try --unshare-net --die-with-parent --as-pid-1 --cap-drop ALL --disable-userns --clearenv --ro-bind \/ \/ --dev \/dev --proc \/proc /)
    expect(s).toContain('--bind /w /w --ro-bind /w/.git/hooks /w/.git/hooks --perms 0000 --tmpfs /w/s --remount-ro /w/s --ro-bind /dev/null /w/f --perms 0555 --tmpfs /w/.bashrc --remount-ro /w/.bashrc')
    expect(s).toMatch(/-- \/x\/cordon-launcher --plan-fd 3 --status-fd 4$/)
    expect(args).not.toContain('--new-session')
  })

  it('binds the launcher read-only only where a mount would hide it', () => {
    const features = { disableUserns: true, cgroupTry: true, bindFd: true }
    const withLauncher = (launcher: string, ops: Parameters<typeof bwrapArgs>[0]['ops']) => {
      const s = bwrapArgs({ features, networkOff: true, ops, launcher }).join(' ')
      return s.includes(`--ro-bind ${launcher} ${launcher} -- ${launcher} `)
    }
    // Visible through `--ro-bind / /` already: no bind (bwrap pays for each one).
    expect(withLauncher('/opt/cordon/cordon-launcher', [{ kind: 'tmpfs', path: '/tmp' }, { kind: 'bind', path: '/w' }])).toBe(false)
    // Under a private tmpfs, a mask, a read-only bind, or bwrap's own /dev: bound last.
    expect(withLauncher('/tmp/cordon-launcher-x/cordon-launcher', [{ kind: 'tmpfs', path: '/tmp' }, { kind: 'bind', path: '/w' }])).toBe(true)
    expect(withLauncher('/home/u/.local/lib/cordon-launcher', [{ kind: 'deny-dir', path: '/home/u/.local' }])).toBe(true)
    expect(withLauncher('/w/cwd/cordon-launcher', [{ kind: 'ro-bind', path: '/w/cwd' }])).toBe(true)
    expect(withLauncher('/dev/shm/cordon-launcher', [])).toBe(true)
  })

  it('binds every host source by descriptor (fds 5, 6, … in order): write roots, pins, protected paths', () => {
    const ops = [{ kind: 'bind', path: '/w' }, { kind: 'bind', path: '/w/.git' }, { kind: 'ro-bind', path: '/w/.git/hooks' }, { kind: 'ro-bind', path: '/elsewhere/x' }] as const
    const sources = fdSources(ops)
    expect(sources).toEqual(['/w', '/w/.git', '/w/.git/hooks', '/elsewhere/x'])
    const s = bwrapArgs({ features: { disableUserns: true, cgroupTry: true, bindFd: true }, networkOff: true, ops, launcher: '/l', sources }).join(' ')
    expect(s).toContain('--bind-fd 5 /w --bind-fd 6 /w/.git --ro-bind-fd 7 /w/.git/hooks --ro-bind-fd 8 /elsewhere/x')
    // The fixed sources stay paths.
    expect(s).toContain('--ro-bind / /')
  })

  it('keeps the network namespace shared when the profile allows network, and omits unsupported options', () => {
    const args = bwrapArgs({ features: { disableUserns: false, cgroupTry: false, bindFd: true }, networkOff: false, ops: [], launcher: '/l' })
    expect(args).not.toContain('--unshare-net')
    expect(args).not.toContain('--disable-userns')
    expect(args).not.toContain('--unshare-cgroup-try')
  })
})

describe('a read-only cwd under a private tmpfs', () => {
  it('stays visible, read-only (otherwise chdir would fail with ENOENT)', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs')
    const { planMounts } = await import('../../../../../src/platform/linux/namespaces/bwrap-mounts.js')
    const cwd = mkdtempSync('/tmp/cordon-cwd-')
    try {
      const plan = planMounts({ writeRoots: [], protectedPaths: [], denyRead: [], visible: [cwd] })
      expect(plan.privateDirs).toContain('/tmp')
      const tmpfsAt = plan.ops.findIndex((o) => o.kind === 'tmpfs' && o.path === '/tmp')
      const bindAt = plan.ops.findIndex((o) => o.kind === 'ro-bind' && o.path === cwd)
      expect(bindAt).toBeGreaterThan(tmpfsAt)
      const inWriteRoot = planMounts({ writeRoots: [cwd], protectedPaths: [], denyRead: [], visible: [cwd] })
      expect(inWriteRoot.ops.filter((o) => o.path === cwd).map((o) => o.kind)).toEqual(['bind'])
    } finally {
      rmSync(cwd, { recursive: true, force: true })
    }
  })
})
