/**
 * cordon's profile schemas use zod/mini, whose messages come from zod's
 * global config: cordon supplies English only when the application has not
 * chosen a language itself (it must not overwrite the application's choice).
 * Each case runs in a fresh node: the config is process-wide.
 */
import { spawnSync } from 'node:child_process'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { distIndex, repoRoot } from '../../helpers/paths.js'

function messageFor(before: string): string {
  const script = `${before}
const { createSandbox } = await import(${JSON.stringify(pathToFileURL(distIndex).href)})
try { createSandbox({ profile: { filesystem: { denySecrets: 5 } } }) } catch (e) { console.log(e.message) }`
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: repoRoot, encoding: 'utf8' })
  expect(r.stderr).toBe('')
  return r.stdout.trim()
}

describe('zod messages', () => {
  it('are English when the application chose nothing', () => {
    expect(messageFor('')).toBe('profile: filesystem.denySecrets: Invalid input: expected boolean, received number')
  })

  it("keep the application's language when it chose one before loading cordon", () => {
    const msg = messageFor("import * as z from 'zod/mini'; import de from 'zod/v4/locales/de.js'; z.config(de())")
    expect(msg).toMatch(/^profile: filesystem\.denySecrets: /)
    expect(msg).not.toContain('Invalid input')
  })
})
