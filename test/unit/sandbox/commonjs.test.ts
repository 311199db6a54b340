/**
 * The CommonJS entry (issue 11): `require('cordon')` from a CommonJS file
 * resolves through package.json "exports" → "require" to dist/index.cjs
 * (scripts/bundle-cjs.mjs) and runs a sandbox. Where Node can turn
 * require(esm) off, it is turned off: the entry must not lean on it (Node
 * 20 before 20.19 has no require(esm) at all).
 */
import { spawnSync } from 'node:child_process'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeTestTmpDir, repoRoot } from '../../helpers/paths.js'

// The bundle is made from dist/, which the global setup rebuilt when src/ changed.
beforeAll(() => {
  const r = spawnSync(process.execPath, ['scripts/bundle-cjs.mjs'], { cwd: repoRoot, encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`bundle-cjs failed: ${r.stderr}`)
})

/** Inside the checkout, so `cordon` resolves to this package (the devDependency `cordon: file:`). */
const dir = makeTestTmpDir('commonjs-')
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const noRequireEsm = process.allowedNodeEnvironmentFlags.has('--no-experimental-require-module') ? ['--no-experimental-require-module'] : []

function runCommonJs(source: string) {
  const file = join(dir, `t-${Math.random().toString(36).slice(2)}.cjs`)
  writeFileSync(file, source)
  return spawnSync(process.execPath, [...noRequireEsm, file], { cwd: dir, encoding: 'utf8', timeout: 30_000 })
}

describe("require('cordon')", () => {
  it('loads the CommonJS build and runs a sandbox', () => {
    const r = runCommonJs(`
      const cordon = require('cordon')
      if (!require.resolve('cordon').endsWith('index.cjs')) throw new Error('resolved ' + require.resolve('cordon'))
      const sb = cordon.createSandbox({ cwd: ${JSON.stringify(dir)}, mode: 'landlock', compat: 'best-effort' })
      sb.run(['sh', '-c', 'echo from-cjs; echo x > ${join(dir, 'written')} && echo wrote']).then((r) => {
        console.log(JSON.stringify({ stdout: r.stdout, exitCode: r.exitCode, mode: r.enforcement.mode }))
        sb.close()
      })
    `)
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({ stdout: 'from-cjs\nwrote\n', exitCode: 0, mode: 'landlock' })
  })

  it('exports what the ES module exports, typed errors included', () => {
    const r = runCommonJs(`
      const cjs = require('cordon')
      import('cordon').then((esm) => {
        const missing = Object.keys(esm).filter((k) => !(k in cjs))
        let code
        try { cjs.createSandbox({ mode: 'chroot' }) } catch (e) { code = e instanceof cjs.PolicyError && e.code }
        console.log(JSON.stringify({ missing, code }))
      })
    `)
    expect(r.status).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({ missing: [], code: 'E_POLICY' })
  })
})
