/** Deny-read globs expand to what matches now, below each static prefix. */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { expandDenyGlobs } from '../../../src/profile/globs.js'

const base = realpathSync(mkdtempSync(join(tmpdir(), 'cordon-globs-')))
afterAll(() => rmSync(base, { recursive: true, force: true }))
const touch = (rel: string) => {
  mkdirSync(join(base, rel, '..'), { recursive: true })
  writeFileSync(join(base, rel), 'x')
  return join(base, rel)
}

describe('expandDenyGlobs', () => {
  const env1 = touch('app/.env')
  const env2 = touch('app/sub/deeper/.env')
  touch('app/.env.example')
  touch('app/node_modules/pkg/.env') // node_modules is not walked
  const token = touch('conf/tokens/api.token')

  it('matches dotfiles at any depth with **', () => {
    expect(expandDenyGlobs([`${base}/app/**/.env`]).matches.sort()).toEqual([env1, env2].sort())
  })

  it('several patterns, de-duplicated', () => {
    const r = expandDenyGlobs([`${base}/**/*.token`, `${base}/conf/**/api.token`])
    expect(r.matches).toEqual([token])
    expect(r.truncated).toBe(false)
  })

  it('a matching directory is reported once, not walked', () => {
    expect(expandDenyGlobs([`${base}/con*`]).matches).toEqual([join(base, 'conf')])
  })

  it('nothing matches → empty; a missing prefix is not an error', () => {
    expect(expandDenyGlobs([`${base}/missing/**/x`]).matches).toEqual([])
  })
})
