/**
 * A sandbox with a network allowlist: its proxy's life (started at
 * creation, waited for by run(), refused to spawn() before it listens,
 * closed with the sandbox) and what bad entries do (nothing is created).
 */
import { readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { afterAll, describe, expect, it } from 'vitest'
import { PolicyError, SetupError } from '../../../src/errors.js'
import { createSandbox } from '../../../src/index.js'
import { makeTestTmpDir } from '../../helpers/paths.js'
import { rmSync } from 'node:fs'

const cwd = makeTestTmpDir('netsb-')
afterAll(() => rmSync(cwd, { recursive: true, force: true }))
const netDirs = () => readdirSync(tmpdir()).filter((n) => n.startsWith('cordon-net-'))
const options = { cwd, mode: 'landlock' as const, compat: 'best-effort' as const, profile: { filesystem: { write: ['${cwd}'] }, network: { allow: ['registry.test'] } } }

describe('a sandbox with a network allowlist', () => {
  it('a bare * is a PolicyError at creation, and nothing is left listening or on disk', () => {
    const before = netDirs()
    expect(() => createSandbox({ ...options, profile: { network: { allow: ['*'] } } })).toThrow(PolicyError)
    expect(netDirs()).toEqual(before)
  })

  it('spawn() before the proxy listens is a SetupError; after ready() it runs with the proxy in its environment', async () => {
    const sb = createSandbox(options)
    try {
      expect(sb.report().proxy).toEqual({ port: 0, allow: ['registry.test'], deny: [], requests: [] })
      expect(() => sb.spawn('true')).toThrow(SetupError)
      await sb.ready()
      const port = sb.report().proxy!.port
      expect(port).toBeGreaterThan(0)
      const r = await sb.spawn('sh', ['-c', 'echo "$HTTPS_PROXY"'])
      expect(r.stdout.trim()).toMatch(new RegExp(`^http://cordon:[A-Za-z0-9_-]{24}@127\\.0\\.0\\.1:${port}$`))
      expect(r.enforcement).toMatchObject({ network: 'proxy', proxy: { port, requests: [] } })
    } finally {
      sb.close()
    }
  })

  it('run() waits for the proxy by itself; close() removes its socket directory', async () => {
    const before = netDirs()
    const sb = createSandbox(options)
    expect(netDirs().length).toBe(before.length + 1)
    const r = await sb.run(['sh', '-c', 'echo "$ALL_PROXY"'])
    expect(r.stdout).toMatch(/^socks5h:\/\/cordon:[A-Za-z0-9_-]{24}@127\.0\.0\.1:\d+\n$/)
    sb.close()
    expect(netDirs()).toEqual(before)
  })
})
