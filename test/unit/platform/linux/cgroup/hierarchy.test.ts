/**
 * Where the caller's cgroups are, from /proc/self/cgroup and
 * /proc/self/mountinfo: fixtures of this project's CI host (hybrid: v1
 * controllers, a v2 hierarchy without them), a systemd user session on a
 * v2-only host, and a container whose hierarchies are bind mounts of its
 * own subtree (one of them of another cgroup's).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { dirUnder, locateCallerCgroups, parseCgroupMounts, parseProcCgroup, pidsIn } from '../../../../../src/platform/linux/cgroup/hierarchy.js'

const fixture = (name: string) => readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8')
const locate = (name: string) => locateCallerCgroups(parseProcCgroup(fixture(`${name}.cgroup`)), parseCgroupMounts(fixture(`${name}.mountinfo`)))

describe('parseProcCgroup', () => {
  it('reads v1 lines (joint controllers, named hierarchies) and the v2 line', () => {
    expect(parseProcCgroup('11:cpu,cpuacct:/a\n1:name=systemd:/\n0::/user.slice/x.scope\n\nnot a line\n')).toEqual([
      { id: 11, controllers: ['cpu', 'cpuacct'], path: '/a' },
      { id: 1, controllers: ['name=systemd'], path: '/' },
      { id: 0, controllers: [], path: '/user.slice/x.scope' },
    ])
  })

  it('keeps a colon inside the path', () => {
    expect(parseProcCgroup('0::/a:b')[0]!.path).toBe('/a:b')
  })
})

describe('parseCgroupMounts', () => {
  it('finds v1 mounts with their controllers and the cgroup2 mount, and nothing else', () => {
    const m = parseCgroupMounts(fixture('hybrid.mountinfo'))
    expect(m.filter((x) => x.version === 2)).toEqual([{ version: 2, mountPoint: '/sys/fs/cgroup/unified', root: '/', options: [] }])
    expect(m.find((x) => x.mountPoint === '/sys/fs/cgroup/pids')).toMatchObject({ version: 1, root: '/', options: ['rw', 'pids'] })
    expect(m.every((x) => x.mountPoint.startsWith('/sys/fs/cgroup/'))).toBe(true)
  })

  it('decodes octal escapes in mount points (a space is \\040)', () => {
    expect(parseCgroupMounts(fixture('container.mountinfo')).find((x) => x.version === 2)!.mountPoint).toBe('/sys/fs/cgroup/unified dir')
  })

  it('skips a truncated line', () => {
    expect(parseCgroupMounts('30 26 0:27 / /sys/fs/cgroup rw - cgroup2')).toEqual([])
  })
})

describe('dirUnder', () => {
  const mount = { version: 1 as const, mountPoint: '/sys/fs/cgroup/pids', root: '/docker/c', options: ['pids'] }
  it('maps a path below the mount root, refuses one outside it or with ..', () => {
    expect(dirUnder(mount, '/docker/c')).toBe('/sys/fs/cgroup/pids')
    expect(dirUnder(mount, '/docker/c/x')).toBe('/sys/fs/cgroup/pids/x')
    expect(dirUnder(mount, '/docker/cx')).toBeUndefined()
    expect(dirUnder(mount, '/')).toBeUndefined()
    expect(dirUnder({ ...mount, root: '/' }, '/docker/c/../../etc')).toBeUndefined()
    expect(dirUnder({ ...mount, root: '/' }, '/')).toBe('/sys/fs/cgroup/pids')
  })
})

describe('locateCallerCgroups', () => {
  it('hybrid (CI): v2 at the unified root, each v1 controller in its own hierarchy, memory nested', () => {
    const c = locate('hybrid')
    expect(c.v2).toBe('/sys/fs/cgroup/unified')
    expect(c.v1.pids).toBe('/sys/fs/cgroup/pids')
    expect(c.v1.cpu).toBe('/sys/fs/cgroup/cpu')
    expect(c.v1.freezer).toBe('/sys/fs/cgroup/freezer')
    expect(c.v1.memory).toMatch(/^\/sys\/fs\/cgroup\/memory\/process_api\/[0-9a-f]+$/)
    expect(c.v1['name=systemd']).toBeUndefined()
  })

  it('v2 only (a systemd user scope): the scope, no v1', () => {
    expect(locate('v2-user')).toEqual({ v2: '/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice/run-u42.scope', v1: {} })
  })

  it("a container: bind mounts of its own subtree map to the mount point; one of another cgroup's is not used", () => {
    const c = locate('container')
    expect(c.v1).toEqual({ pids: '/sys/fs/cgroup/pids', cpu: '/sys/fs/cgroup/cpu,cpuacct', cpuacct: '/sys/fs/cgroup/cpu,cpuacct', memory: '/sys/fs/cgroup/memory' })
    expect(c.v2).toBe('/sys/fs/cgroup/unified dir')
  })
})

it('pidsIn reads cgroup.procs', () => {
  expect(pidsIn('12\n345\n\n')).toEqual([12, 345])
  expect(pidsIn('')).toEqual([])
})
