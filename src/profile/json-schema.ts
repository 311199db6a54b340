/** The JSON Schema of a permission profile, generated from the zod schema (zod's own converter). */
import { z } from 'zod'
import { profileSchema } from './schema.js'

export function profileJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(profileSchema, { io: 'input', target: 'draft-2020-12' }),
    $id: 'https://cordon.dev/profile.schema.json',
    title: 'cordon permission profile',
  }
}
