import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { profileJsonSchema } from '../../../src/profile/json-schema.js'

describe('profiles/profile.schema.json', () => {
  it('is the schema generated from the zod profile schema (run node scripts/gen-schema.mjs after changing it)', () => {
    const committed = JSON.parse(readFileSync(new URL('../../../profiles/profile.schema.json', import.meta.url), 'utf8'))
    expect(committed).toEqual(profileJsonSchema())
  })

  it('rejects unknown keys, so a typo in a profile is an error, not an ignored setting', () => {
    expect(profileJsonSchema().additionalProperties).toBe(false)
  })
})
