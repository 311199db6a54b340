/**
 * Persistence inside writable roots (threat-model.md § Files): protected
 * paths (.git/hooks, shell rc files, …) need read-only binds, which only
 * namespace mode has. Landlock-only mode must say so in the enforcement
 * report instead of pretending.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeEscape, Escape, outcomeOf } from '../../helpers/escape.js'

describeEscape('persistence', (identity, mode) => {
  let e: Escape
  beforeAll(() => {
    e = new Escape(identity, mode, 'persist')
    e.tree.file('work/.git/hooks/pre-commit.sample', '#!/bin/sh\n')
  })
  afterAll(() => e?.cleanup())

  // One test per mode: each mode's own answer to the same threat.
  if (mode === 'landlock') it('Landlock mode reports protected-paths as not enforced', async () => {
    const reply = await e.confined(['true'])
    const enforcement = reply.result!.enforcement!
    expect(enforcement.mode).toBe('landlock')
    expect(enforcement.status).toBe('partial')
    expect(enforcement.missing.map((m) => m.protection)).toContain('protected-paths')
    expect(enforcement.filesystem.protected).toContain(`${e.tree.work}/.git/hooks`)
  })

  if (mode === 'namespaces') it('namespace mode enforces protected paths', async () => {
    const reply = await e.confined([e.probe('files'), 'create', `${e.tree.work}/.git/hooks/post-checkout`])
    expect(['EROFS', 'EACCES', 'EPERM']).toContain(outcomeOf(reply))
    expect(reply.result!.enforcement!.missing.map((m) => m.protection)).not.toContain('protected-paths')
  })
}, { concurrent: false })
