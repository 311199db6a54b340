/**
 * The one table of Landlock rights by ABI (native/linux/landlock-abi.c),
 * which the launcher handles and the addon exports (`binding.landlock`):
 * checked against the kernel UAPI, written out here independently, and
 * against what the running kernel accepts at its own ABI.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadNative } from '../../src/native/load.js'
import { landlockFeatures, probeHost } from '../../src/platform/linux/probe.js'
import { repoRoot } from '../helpers/paths.js'
import { skipNow } from '../helpers/requirements.js'

const { binding } = loadNative()

/**
 * include/uapi/linux/landlock.h: each right's bit and the ABI it arrived
 * with (landlock(7); Documentation/userspace-api/landlock.rst).
 */
const UAPI = {
  fs: { EXECUTE: [0, 1], WRITE_FILE: [1, 1], READ_FILE: [2, 1], READ_DIR: [3, 1], REMOVE_DIR: [4, 1], REMOVE_FILE: [5, 1], MAKE_CHAR: [6, 1], MAKE_DIR: [7, 1], MAKE_REG: [8, 1], MAKE_SOCK: [9, 1], MAKE_FIFO: [10, 1], MAKE_BLOCK: [11, 1], MAKE_SYM: [12, 1], REFER: [13, 2], TRUNCATE: [14, 3], IOCTL_DEV: [15, 5] },
  net: { BIND_TCP: [0, 4], CONNECT_TCP: [1, 4] },
  scoped: { ABSTRACT_UNIX_SOCKET: [0, 6], SIGNAL: [1, 6] },
  restrictFlags: { LOG_SAME_EXEC_OFF: [0, 7], LOG_NEW_EXEC_ON: [1, 7], LOG_SUBDOMAINS_OFF: [2, 7] },
} as const
/** The mainline release that brought each ABI. */
const KERNEL = ['5.13', '5.19', '6.2', '6.7', '6.10', '6.12', '6.15']

const mask = (rights: Record<string, readonly [number, number]>, abi: number) =>
  Object.values(rights).reduce((m, [bit, since]) => (since <= abi ? m | (2 ** bit) : m), 0)

/** struct landlock_ruleset_attr: handled_access_fs (ABI 1), handled_access_net (ABI 4), scoped (ABI 6). */
const attrSize = (abi: number) => (abi < 4 ? 8 : abi < 6 ? 16 : 24)

describe('the Landlock rights table', () => {
  it('covers ABI 1 to 7, in order', () => {
    expect(binding.landlock.known).toBe(7)
    expect(binding.landlock.abis.map((r) => r.abi)).toEqual([1, 2, 3, 4, 5, 6, 7])
  })

  it.each([1, 2, 3, 4, 5, 6, 7])('ABI %i: exactly the rights the UAPI defines up to it', (abi) => {
    const row = binding.landlock.abis[abi - 1]!
    expect({ ...row, protection: undefined }).toEqual({
      abi,
      kernel: KERNEL[abi - 1],
      fs: mask(UAPI.fs, abi),
      net: mask(UAPI.net, abi),
      scoped: mask(UAPI.scoped, abi),
      restrictFlags: mask(UAPI.restrictFlags, abi),
      attrSize: attrSize(abi),
      protection: undefined,
    })
  })

  it('names what an older kernel lacks where cordon reports it, with the wording of probe.ts', () => {
    expect(binding.landlock.abis.map((r) => r.protection)).toEqual([null, 'landlock-refer', 'landlock-truncate', null, 'landlock-ioctl-dev', 'signal-scope', null])
    expect(landlockFeatures()).toEqual([
      { abi: 2, protection: 'landlock-refer', reason: 'renaming or linking files across directories is not controlled (ABI 2, Linux 5.19)' },
      { abi: 3, protection: 'landlock-truncate', reason: 'truncating read-only files is not controlled (ABI 3, Linux 6.2)' },
      { abi: 5, protection: 'landlock-ioctl-dev', reason: 'ioctl on device files is not controlled (ABI 5, Linux 6.10)' },
      { abi: 6, protection: 'signal-scope', reason: 'signals to processes outside the sandbox are not blocked — its supervisor included, so what the command leaves behind could outlive it (ABI 6, Linux 6.12)' },
    ])
  })
})

describe('the running kernel agrees with the table at its own ABI', () => {
  const abi = probeHost().landlockAbi
  let fixtures: string
  beforeAll(() => {
    fixtures = mkdtempSync(join(tmpdir(), 'cordon-landlock-'))
    execFileSync('cc', ['-O1', '-Wall', '-o', join(fixtures, 'landlock-accepts'), join(repoRoot, 'test/native/fixtures/landlock-accepts.c')])
  })
  afterAll(() => rmSync(fixtures, { recursive: true, force: true }))

  it('accepts exactly the rights and flags of its row (a newer kernel: at least the newest row)', (ctx) => {
    if (abi === null || abi < 1) {
      return skipNow(ctx, { reason: 'this kernel has no Landlock (needs Linux 5.13 with landlock in the lsm= list)' })
    }
    const found = JSON.parse(execFileSync(join(fixtures, 'landlock-accepts'), { encoding: 'utf8' })) as Record<'fs' | 'net' | 'scoped' | 'restrictFlags', number>
    const row = binding.landlock.abis[Math.min(abi, binding.landlock.known) - 1]!
    const expected = { fs: row.fs, net: row.net, scoped: row.scoped, restrictFlags: row.restrictFlags }
    if (abi <= binding.landlock.known) expect(found).toEqual(expected)
    else for (const k of Object.keys(expected) as (keyof typeof expected)[]) expect(found[k] & expected[k], k).toBe(expected[k])
  })
})
