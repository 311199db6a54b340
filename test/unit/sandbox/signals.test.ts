/**
 * A sandboxed command a signal ended reports the signal under the name
 * node:child_process gives it (issue 11, bug 8: SIGABRT came back as
 * 'SIGIOT', SIGIO as 'SIGPOLL'), in both modes.
 */
import { rmSync } from 'node:fs'
import { afterAll, expect, it } from 'vitest'
import { createSandbox } from '../../../src/index.js'
import { modeMissing, TEST_MODES } from '../../helpers/modes.js'
import { self } from '../../helpers/identity.js'
import { describeWhere } from '../../helpers/requirements.js'
import { makeTestTmpDir } from '../../helpers/paths.js'
import { nodeSignalNames } from '../../helpers/signals.js'

const dir = makeTestTmpDir('signals-') // namespace mode hides the host /tmp
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const expected = nodeSignalNames()

for (const mode of TEST_MODES) {
  describeWhere(modeMissing(self(), mode), `${mode} mode: a command ended by a signal`, () => {
  const sb = createSandbox({ cwd: dir, mode, compat: 'best-effort' })
  afterAll(() => sb.close())

  it('reports the name node:child_process reports, for every signal that ends a process', async () => {
    expect(expected.size).toBeGreaterThan(20)
    const got = new Map<number, string | null>()
    for (const n of expected.keys()) {
      const r = await sb.run(['sh', '-c', `kill -${n} $$`])
      got.set(n, r.signal)
    }
    expect(got).toEqual(expected)
  })

  it('SIGABRT and SIGIO by their usual names (spawn too)', async () => {
    await expect(sb.spawn('sh', ['-c', 'kill -ABRT $$'])).resolves.toMatchObject({ signal: 'SIGABRT', exitCode: null })
    await expect(sb.spawn('sh', ['-c', 'kill -IO $$'])).resolves.toMatchObject({ signal: 'SIGIO', exitCode: null })
  })
})
}
