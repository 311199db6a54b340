/**
 * The orchestrator's kept sandboxes (src/orchestrator/sandbox-pool.ts):
 * one sandbox per set of plain-data options, handed out again only for
 * exactly those options (and what a sandbox reads from the process when it
 * is made), told to look at the filesystem afresh each time it is handed
 * out again, never closed while held, closed once idle. The sandboxes here
 * are counting stand-ins; what a kept sandbox enforces is tested with the
 * real one in test/escape/linux/orchestrator/kept-sandbox.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { MAX_KEPT, SandboxPool, type ReusableSandbox } from '../../../src/orchestrator/sandbox-pool.js'
import type { SandboxOptions } from '../../../src/index.js'

interface Counted extends ReusableSandbox {
  readonly options: SandboxOptions
  closed: number
  forgot: number
}

function factory() {
  const made: Counted[] = []
  const make = (options: SandboxOptions): Counted => {
    const tmp = `/tmp/cordon-${made.length}`
    const sb = {
      options,
      closed: 0,
      forgot: 0,
      cwd: options.cwd ?? '',
      profileName: 'fake',
      close: () => void sb.closed++,
      recheckPaths: () => void sb.forgot++,
      privateTmp: () => (sb.closed ? undefined : tmp),
    } as unknown as Counted
    made.push(sb)
    return sb
  }
  return { made, make }
}

const ws = '/work/ws'
const IDLE = 50

afterEach(() => vi.useRealTimers())

describe('SandboxPool', () => {
  it('hands the same sandbox to the same plain options, each later time told to look at paths afresh', () => {
    const { made, make } = factory()
    const pool = new SandboxPool(make, IDLE)
    const a = pool.acquire({ cwd: ws, mode: 'landlock' })
    expect(made[0]!.forgot).toBe(0) // made in this call: its paths were just looked at
    a.release()
    const b = pool.acquire({ cwd: ws, mode: 'landlock' })
    expect(b.sandbox).toBe(a.sandbox)
    expect(made).toHaveLength(1)
    expect(made[0]!.forgot).toBe(1)
    const c = pool.acquire({ cwd: ws, mode: 'landlock' }) // while b holds it: shared too
    expect(c.sandbox).toBe(a.sandbox)
    expect(made[0]!.forgot).toBe(2)
    b.release()
    c.release()
    expect(made[0]!.closed).toBe(0)
  })

  it('makes the sandbox from the options as they were, with the cwd and environment it would have read', () => {
    const { made, make } = factory()
    const pool = new SandboxPool(make, IDLE)
    pool.acquire({ mode: 'landlock', write: ['/x'] }).release()
    expect(made[0]!.options).toEqual({ mode: 'landlock', write: ['/x'], cwd: process.cwd(), env: { ...process.env } })
  })

  const variants: [string, SandboxOptions][] = [
    ['another write root', { cwd: ws, write: ['/other'] }],
    ['another cwd', { cwd: '/work/other' }],
    ['another mode', { cwd: ws, mode: 'namespaces' }],
    ['another profile', { cwd: ws, profile: 'read-only' }],
    ['another profile object', { cwd: ws, profile: { filesystem: { read: 'all', write: [] } } }],
    ['another network', { cwd: ws, network: 'on' }],
    ['another deny-read path', { cwd: ws, denyRead: ['/secret'] }],
    ['another environment', { cwd: ws, env: { PATH: '/bin' } }],
    ['other limits', { cwd: ws, limits: { nofile: 64 } }],
  ]
  for (const [what, options] of variants) {
    it(`never hands a sandbox to ${what}`, () => {
      const { made, make } = factory()
      const pool = new SandboxPool(make, IDLE)
      const base = pool.acquire({ cwd: ws })
      const other = pool.acquire(options)
      expect(other.sandbox).not.toBe(base.sandbox)
      expect(made).toHaveLength(2)
      expect((other.sandbox as Counted).options).toMatchObject(options)
    })
  }

  it('a change of process.env or os.tmpdir() is another sandbox when the options give no env', () => {
    const { made, make } = factory()
    const pool = new SandboxPool(make, IDLE)
    pool.acquire({ cwd: ws }).release()
    const saved = process.env.CORDON_POOL_TEST
    process.env.CORDON_POOL_TEST = 'changed'
    try {
      const b = pool.acquire({ cwd: ws })
      expect(made).toHaveLength(2)
      expect((b.sandbox as Counted).options.env?.CORDON_POOL_TEST).toBe('changed')
    } finally {
      if (saved === undefined) delete process.env.CORDON_POOL_TEST
      else process.env.CORDON_POOL_TEST = saved
    }
    const tmp = mkdtempSync(join(tmpdir(), 'pool-tmp-'))
    const savedTmp = process.env.TMPDIR
    process.env.TMPDIR = tmp
    try {
      pool.acquire({ cwd: ws, env: { A: '1' } }).release()
      process.env.TMPDIR = join(tmp, '..')
      pool.acquire({ cwd: ws, env: { A: '1' } }).release()
      expect(made).toHaveLength(4)
    } finally {
      process.env.TMPDIR = savedTmp
      rmSync(tmp, { recursive: true, force: true })
    }
  })

  it('with process.env replaced by a plain object (environ no longer follows it), a change of it is still another sandbox', () => {
    const { made, make } = factory()
    const pool = new SandboxPool(make, IDLE)
    const real = process.env
    process.env = { ...real, API_TOKEN: 'first' }
    try {
      pool.acquire({ cwd: ws }).release()
      process.env.API_TOKEN = 'second'
      const b = pool.acquire({ cwd: ws })
      expect(made).toHaveLength(2)
      expect((b.sandbox as Counted).options.env?.API_TOKEN).toBe('second')
      delete process.env.API_TOKEN // a secret removed from the environment reaches no sandbox
      const c = pool.acquire({ cwd: ws })
      expect(made).toHaveLength(3)
      expect((c.sandbox as Counted).options.env).not.toHaveProperty('API_TOKEN')
    } finally {
      process.env = real
    }
  })

  it('options that are not plain data, or a profile file, get a sandbox of their own, closed on release', () => {
    const { made, make } = factory()
    const pool = new SandboxPool(make, IDLE)
    const own: SandboxOptions[] = [
      { cwd: ws, onNetworkRequest: () => 'denied' },
      { cwd: ws, networkLookup: () => {} },
      { cwd: ws, profile: '/etc/cordon/profile.json' },
    ]
    for (const options of own) {
      const a = pool.acquire(options)
      const b = pool.acquire(options)
      expect(b.sandbox).not.toBe(a.sandbox)
      a.release()
      a.release() // the second call does nothing
      expect((a.sandbox as Counted).closed).toBe(1)
      expect((b.sandbox as Counted).closed).toBe(0)
      b.release()
    }
    expect(made).toHaveLength(6)
    expect(made.every((s) => s.closed === 1 && s.forgot === 0)).toBe(true)
  })

  it('is never closed while held (an attempt, or the process it retained); closed once idle', () => {
    vi.useFakeTimers()
    const { made, make } = factory()
    const pool = new SandboxPool(make, IDLE)
    const attempt = pool.acquire({ cwd: ws })
    const session = pool.acquire({ cwd: ws }) // a process left running past its attempt
    attempt.release()
    attempt.release() // counted once
    vi.advanceTimersByTime(IDLE * 10)
    expect(made[0]!.closed).toBe(0)
    session.release()
    vi.advanceTimersByTime(IDLE - 1)
    expect(made[0]!.closed).toBe(0)
    const again = pool.acquire({ cwd: ws }) // taken again before the idle time ran out: kept
    vi.advanceTimersByTime(IDLE * 10)
    expect(made[0]!.closed).toBe(0)
    again.release()
    vi.advanceTimersByTime(IDLE)
    expect(made[0]!.closed).toBe(1)
    const next = pool.acquire({ cwd: ws }) // a closed sandbox is never handed out
    expect(next.sandbox).not.toBe(made[0])
    expect(made).toHaveLength(2)
  })

  it(`keeps at most ${MAX_KEPT} sandboxes; past that an attempt gets its own`, () => {
    const { made, make } = factory()
    const pool = new SandboxPool(make, IDLE)
    for (let i = 0; i < MAX_KEPT; i++) pool.acquire({ cwd: `/w/${i}` }).release()
    const extra = pool.acquire({ cwd: '/w/extra' })
    extra.release()
    expect((extra.sandbox as Counted).closed).toBe(1)
    expect(pool.acquire({ cwd: '/w/0' }).sandbox).toBe(made[0])
  })

  it("lists the private $TMPDIR of each kept sandbox (a write root that outlives its commands), not of one closed or not kept", () => {
    vi.useFakeTimers()
    const { make } = factory()
    const pool = new SandboxPool(make, IDLE)
    pool.acquire({ cwd: '/w/a' }).release()
    const b = pool.acquire({ cwd: '/w/b' })
    const own = pool.acquire({ cwd: ws, onNetworkRequest: () => 'denied' })
    expect(pool.tmpDirs()).toEqual(['/tmp/cordon-0', '/tmp/cordon-1'])
    vi.advanceTimersByTime(IDLE) // a's idle time is over; b is held
    expect(pool.tmpDirs()).toEqual(['/tmp/cordon-1'])
    b.release()
    own.release()
  })

  it('a sandbox that cannot be made is not kept', () => {
    let fail = true
    const { made, make } = factory()
    const pool = new SandboxPool((o) => {
      if (fail) throw new Error('cannot set up')
      return make(o)
    }, IDLE)
    expect(() => pool.acquire({ cwd: ws })).toThrow('cannot set up')
    fail = false
    const a = pool.acquire({ cwd: ws })
    expect(a.sandbox).toBe(made[0])
  })
})
