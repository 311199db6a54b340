/**
 * A profile with `unsandboxed: true` drops Landlock and seccomp, and nothing
 * else: the launcher still applies the profile's resource limits.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createSandbox } from '../../../src/index.js'

const dir = mkdtempSync(join(tmpdir(), 'cordon-unsandboxed-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('unsandboxed profile', () => {
  it('still applies the profile limits (RLIMIT_NOFILE) and RLIMIT_CORE 0', async () => {
    const sb = createSandbox({
      cwd: dir,
      profile: { filesystem: { read: 'all', write: [dir], denySecrets: false, denyRead: [] }, network: 'on', unsandboxed: true },
      limits: { nofile: 64 },
    })
    const r = await sb.run(['sh', '-c', 'ulimit -n; ulimit -c'])
    sb.close()
    expect(r.enforcement.mode).toBe('none')
    expect(r.stdout.trim().split('\n')).toEqual(['64', '0'])
  })
})
