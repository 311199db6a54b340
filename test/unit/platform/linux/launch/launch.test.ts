/**
 * A launch that cannot make the command's descriptors (the caller is out of
 * them: EMFILE) fails with a SetupError, not with the addon's bare Error.
 * Run in a child Node with a low descriptor limit (never in the test process).
 */
import { spawnSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { distIndex, makeTestTmpDir } from '../../../../helpers/paths.js'

const dir = makeTestTmpDir('launch-')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

// One run starts the zygote; then every descriptor but one is taken, so the
// next launch's second pipe fails.
const script = `
import { closeSync, openSync } from 'node:fs'
const { createSandbox } = await import(${JSON.stringify(distIndex)})
const sb = createSandbox({ cwd: ${JSON.stringify(dir)}, mode: 'landlock', compat: 'best-effort' })
await sb.run(['true'])
const fds = []
try { for (;;) fds.push(openSync('/dev/null', 'r')) } catch {}
closeSync(fds.pop())
const out = await sb.run(['true']).then(() => ({ ran: true }), (e) => ({ name: e.name, code: e.code, step: e.step, syscall: e.syscall, errno: e.errno, errnoCode: e.errnoCode, message: e.message }))
for (const fd of fds) closeSync(fd)
sb.close()
console.log(JSON.stringify(out))
`

describe('launch', () => {
  it('out of descriptors: a SetupError (EMFILE at the pipes), not the addon error', () => {
    const r = spawnSync('sh', ['-c', 'ulimit -n 256 && exec "$0" --input-type=module -e "$1"', process.execPath, script], { encoding: 'utf8' })
    expect(r.stderr).toBe('')
    expect(JSON.parse(r.stdout)).toEqual({
      name: 'SetupError',
      code: 'E_SETUP',
      step: 'launch',
      syscall: 'pipe2',
      errno: 24,
      errnoCode: 'EMFILE',
      message: "sandbox setup failed at step 'launch': pipe2: EMFILE (errno 24) — could not make the command's pipes",
    })
  })
})
