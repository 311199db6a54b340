/**
 * The private launcher copy: used when the shipped launcher lies inside a
 * write root, placed outside every write root — also when the temp dir is
 * one (`cd /tmp && cordon run -- ls` with cordon installed under a write
 * root used to fail: "no place … for a private launcher copy").
 */
import { spawnSync } from 'node:child_process'
import { readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { LoadError } from '../../../../src/errors.js'
import { createSandbox } from '../../../../src/index.js'
import { loadNative } from '../../../../src/native/load.js'
import { copyPlaces, launcherFor } from '../../../../src/platform/launcher-path.js'
import { isWithin } from '../../../../src/profile/paths.js'
import { thrown } from '../../../helpers/errors.js'
import { self } from '../../../helpers/identity.js'
import { modeMissing, TEST_MODES } from '../../../helpers/modes.js'
import { repoRoot } from '../../../helpers/paths.js'
import { describeWhere } from '../../../helpers/requirements.js'

const shipped = loadNative().launcherPath
const realTmp = spawnSync('realpath', [tmpdir()], { encoding: 'utf8' }).stdout.trim()

describe('launcherFor', () => {
  it('the shipped launcher when no write root holds it', () => {
    expect(launcherFor([join(repoRoot, 'test', '.tmp')])).toBe(shipped)
  })

  it('a write root over the launcher and over the temp dir: a private copy outside both, made once', () => {
    const roots = [dirname(shipped), realTmp]
    const copy = launcherFor(roots)
    expect(copy).not.toBe(shipped)
    expect(roots.some((r) => isWithin(copy, r))).toBe(false)
    expect(readFileSync(copy).equals(readFileSync(shipped))).toBe(true)
    expect(statSync(copy).mode & 0o777).toBe(0o500)
    expect(statSync(dirname(copy)).mode & 0o777).toBe(0o700)
    expect(launcherFor(roots)).toBe(copy)
  })

  it('every place a write root: a LoadError naming the places tried (and the shipped one for write root "/")', () => {
    const roots = [dirname(shipped), ...copyPlaces().map((p) => spawnSync('realpath', ['-m', p], { encoding: 'utf8' }).stdout.trim())]
    const e = thrown(LoadError, () => launcherFor(roots))
    expect(e.tried).toEqual(copyPlaces())
    expect(launcherFor(['/'])).toBe(shipped)
  })
})

for (const mode of TEST_MODES) {
  // This process is the caller here: what its mode lacks (namespace mode without bubblewrap) skips, with the reason.
  describeWhere(modeMissing(self(), mode), `a sandbox in the temp dir writing where cordon is installed (${mode})`, () => {
    it('runs (it used to fail: no place for the private launcher copy)', async () => {
      const sb = createSandbox({ cwd: realTmp, write: [repoRoot], mode })
      try {
        const r = await sb.run(['/bin/sh', '-c', 'pwd'])
        expect(r).toMatchObject({ exitCode: 0, stdout: `${realTmp}\n` })
      } finally {
        sb.close()
      }
    })
  })
}

describe('the CLI in /tmp with a write root over cordon', () => {
  it('`cordon run --write <checkout> -- ls` from the temp dir exits 0', () => {
    const r = spawnSync(process.execPath, [join(repoRoot, 'bin', 'cordon.js'), 'run', '--mode', 'landlock', '--write', repoRoot, '--', '/bin/true'], { cwd: realTmp, encoding: 'utf8' })
    expect(r.stderr).not.toMatch(/no place/)
    expect(r.status).toBe(0)
  })
})
