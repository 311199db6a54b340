// Write profiles/profile.schema.json (for editors) from the zod profile schema.
// `npm test` fails when the committed file differs (test/unit/policy/json-schema.test.ts).
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { profileJsonSchema } from '../dist/profile/json-schema.js'

const out = fileURLToPath(new URL('../profiles/profile.schema.json', import.meta.url))
writeFileSync(out, JSON.stringify(profileJsonSchema(), null, 2) + '\n')
console.log(`wrote ${out}`)
