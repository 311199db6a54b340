/** Profiles: built-ins, files and objects through one schema; errors name where. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { PolicyError } from '../../../src/errors.js'
import { BUILTIN_PROFILES, builtinSecretDenies, loadProfile } from '../../../src/profile/profiles.js'
import { profileSchema } from '../../../src/profile/schema.js'
import { thrown } from '../../helpers/errors.js'

const dir = mkdtempSync(join(tmpdir(), 'cordon-profiles-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const policyError = (fn: () => unknown) => thrown(PolicyError, fn)

describe('built-in profiles', () => {
  it.each(BUILTIN_PROFILES)('%s loads and validates', (name) => {
    const p = loadProfile(name)
    expect(p.name).toBe(name)
    expect(['off', 'on']).toContain(p.network)
  })

  it.each(BUILTIN_PROFILES)('%s denies the built-in secrets list (denySecrets is on)', (name) => {
    expect(loadProfile(name).filesystem.denySecrets).toBe(true)
  })

  it('the secrets list covers the usual credential stores', () => {
    expect(builtinSecretDenies()).toEqual(expect.arrayContaining(['~/.ssh', '~/.aws', '~/.gnupg', '~/.netrc', '~/.config/gh']))
  })

  it('workspace-write writes cwd and the private tmpdir, with network off and persistence targets protected', () => {
    const p = loadProfile('workspace-write')
    expect(p.filesystem.write).toEqual(['${cwd}', '${tmpdir}'])
    expect(p.network).toBe('off')
    expect(p.filesystem.protected).toEqual(expect.arrayContaining(['${cwd}/.git/hooks', '${cwd}/.git/config']))
  })
})

describe('profile errors', () => {
  it('an unknown name → PolicyError listing the built-ins', () => {
    const e = policyError(() => loadProfile('no-such-profile'))
    expect(e.code).toBe('E_POLICY')
    expect(e.where).toBe('profile')
    expect(e.message).toMatch(/workspace-write/)
  })

  it('a file that is not JSON → PolicyError naming the file', () => {
    const file = join(dir, 'broken.json')
    writeFileSync(file, '{ "network": "off", ')
    const e = policyError(() => loadProfile(file))
    expect(e.where).toBe(file)
    expect(e.message).toMatch(/not valid JSON/)
  })

  it('a missing file → PolicyError naming the file', () => {
    const file = join(dir, 'missing.json')
    expect(policyError(() => loadProfile(file)).where).toBe(file)
  })

  it('a schema error names the field: filesystem.write not an array', () => {
    const file = join(dir, 'bad-write.json')
    writeFileSync(file, JSON.stringify({ filesystem: { write: '/tmp' } }))
    const e = policyError(() => loadProfile(file))
    expect(e.where).toBe(`${file}: filesystem.write`)
  })

  it('an object profile with an unknown key names it', () => {
    const e = policyError(() => loadProfile({ filesystem: { read: 'all' }, netwrok: 'on' } as never))
    expect(e.where).toMatch(/^profile: /)
    expect(e.message).toMatch(/netwrok/)
  })

  it('a NUL byte in a path is refused with the path of the field', () => {
    const e = policyError(() => loadProfile({ filesystem: { denyRead: ['/tmp/a\0b'] } }))
    expect(e.where).toBe('profile: filesystem.denyRead.0')
  })

  it('a negative limit is refused', () => {
    expect(policyError(() => loadProfile({ limits: { nofile: -1 } })).where).toBe('profile: limits.nofile')
  })
})

describe('parsed profiles', () => {
  it('never share default arrays or objects: changing one parse result leaves the next one alone', () => {
    const first = profileSchema.parse({})
    first.filesystem.write.push('/planted')
    first.env.deny.push('X')
    first.env.set.Y = '1'
    const second = profileSchema.parse({})
    expect(second.filesystem.write).toEqual([])
    expect(second.env.deny).toEqual([])
    expect(second.env.set).toEqual({})
  })
})
