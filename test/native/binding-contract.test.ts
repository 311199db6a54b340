/**
 * The N-API binding contract (native/binding.cc ↔ src/native/binding.d.ts):
 * probe() shape and types, argument checks, the ABI version. probe() only
 * asks the kernel (its user-namespace test runs in a throwaway child), so
 * it may run in the test process; hardenSelf() never does (see
 * harden-self.test.ts).
 */
import { machine, release } from 'node:os'
import { describe, expect, it } from 'vitest'
import { loadNative } from '../../src/native/load.js'

const { binding } = loadNative()

const FIELDS = {
  landlockAbi: 'number|null',
  landlockErrno: 'number',
  landlockErrata: 'number|null',
  seccomp: 'boolean',
  seccompErrno: 'number',
  userns: 'boolean|null',
  usernsErrno: 'number',
  usernsStep: 'string|null',
  maxUserNamespaces: 'number|null',
  unprivilegedUsernsClone: 'number|null',
  apparmorRestrictUserns: 'number|null',
  noNewPrivs: 'boolean',
  kernel: 'string',
  machine: 'string',
} as const

const typeOf = (v: unknown) => (v === null ? 'null' : typeof v)

describe('probe()', () => {
  const p = binding.probe(true) as unknown as Record<string, unknown>

  it('returns exactly the documented fields, each with its type', () => {
    expect(Object.keys(p).sort()).toEqual(Object.keys(FIELDS).sort())
    for (const [key, types] of Object.entries(FIELDS)) expect(types.split('|'), key).toContain(typeOf(p[key]))
  })

  it('numbers are integers; a missing Landlock comes with its errno', () => {
    for (const key of Object.keys(FIELDS)) if (typeof p[key] === 'number') expect(Number.isInteger(p[key]), key).toBe(true)
    if (p.landlockAbi === null) expect(p.landlockErrno).toBeGreaterThan(0)
    else expect([p.landlockAbi as number, p.landlockErrno]).toEqual([expect.any(Number), 0])
    if (p.seccomp) expect(p.seccompErrno).toBe(0)
    else expect(p.seccompErrno).toBeGreaterThan(0)
  })

  it('without an argument it does not fork to test user namespaces (userns: null)', () => {
    const cheap = binding.probe() as unknown as Record<string, unknown>
    expect([cheap.userns, cheap.usernsStep, cheap.usernsErrno]).toEqual([null, null, 0])
    expect({ ...cheap, userns: p.userns, usernsStep: p.usernsStep, usernsErrno: p.usernsErrno }).toEqual(p)
  })

  it('usernsStep names the failing step only when user namespaces do not work', () => {
    expect(typeof p.userns).toBe('boolean')
    if (p.userns) expect([p.usernsStep, p.usernsErrno]).toEqual([null, 0])
    else expect(['fork', 'unshare', 'mount']).toContain(p.usernsStep)
  })

  it('reports this host: kernel release and machine', () => {
    expect(p.kernel).toBe(release())
    expect(p.machine).toBe(machine())
  })

  it('is stable across calls and does not change the calling process', () => {
    const again = binding.probe(true) as unknown as Record<string, unknown>
    expect(again).toEqual(p)
    expect(again.noNewPrivs).toBe(false) // vitest workers never run with no_new_privs
  })

  it('rejects arguments with a TypeError', () => {
    const probe = binding.probe as unknown as (...a: unknown[]) => unknown
    expect(() => probe(1)).toThrow(TypeError)
    expect(() => probe(true, true)).toThrow(TypeError)
  })
})

describe('module', () => {
  it('exports probe, hardenSelf and abiVersion 10 (FdReader, sealedMemfd; wire, landlock; notify rules; openPty, terminal, setTerminalSize; cgroup.procs fds; launcher plan connectPorts and forwarder; relay; zygoteSend for joins ahead; environBlock, lstatKinds)', () => {
    expect(typeof binding.probe).toBe('function')
    expect(typeof binding.hardenSelf).toBe('function')
    expect(binding.abiVersion).toBe(10)
    expect(typeof binding.environBlock).toBe('function')
    expect(typeof binding.lstatKinds).toBe('function')
    expect(typeof binding.zygoteSend).toBe('function')
    expect(typeof binding.FdReader).toBe('function')
    expect(typeof binding.relay).toBe('function')
    expect(typeof binding.sealedMemfd).toBe('function')
    for (const f of [binding.openPty, binding.terminal, binding.setTerminalSize]) expect(typeof f).toBe('function')
  })

  it('names a launcher executable beside the addon', () => {
    const { addonPath, launcherPath } = loadNative()
    expect(addonPath.endsWith('.node')).toBe(true)
    expect(launcherPath).toMatch(/cordon-launcher$/)
  })
})
