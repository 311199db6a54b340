/**
 * Built-in profiles live in profiles/*.json (data, not code). A profile is
 * named (`workspace-write`), read from a file, or passed as an object; all
 * three go through the same zod schema.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import * as z from 'zod/mini'
import { PolicyError } from '../errors.js'
import { parseWith } from './parse-with.js'
import { packageRoot } from '../native/load.js'
import { profileSchema, type Profile, type ProfileInput } from './schema.js'

export const BUILTIN_PROFILES = ['read-only', 'workspace-write', 'full-access'] as const
export type BuiltinProfileName = (typeof BUILTIN_PROFILES)[number]
export const DEFAULT_PROFILE: BuiltinProfileName = 'workspace-write'

const profilesDir = join(packageRoot, 'profiles')

function readJson(path: string, what: string): unknown {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (cause) {
    throw new PolicyError(`cannot read ${what}: ${(cause as Error).message}`, { where: path, cause })
  }
  try {
    return JSON.parse(text)
  } catch (cause) {
    throw new PolicyError(`${what} is not valid JSON: ${(cause as Error).message}`, { where: path, cause })
  }
}

/** Turn a zod failure into a PolicyError naming the first offending field. */
export function parseProfile(input: unknown, source: string): Profile {
  return parseWith(profileSchema, input, source)
}

let secretsCache: string[] | undefined
export function builtinSecretDenies(): string[] {
  if (!secretsCache) {
    const path = join(profilesDir, 'secrets.json')
    secretsCache = parseWith(z.looseObject({ denyRead: z.array(z.string()) }), readJson(path, 'secrets list'), path).denyRead
  }
  return secretsCache
}

const builtinCache = new Map<string, Profile>()

/** A profile by built-in name, by file path (contains '/' or ends in .json), or as an object. */
export function loadProfile(spec: string | ProfileInput): Profile {
  if (typeof spec !== 'string') return parseProfile(spec, 'profile')
  if ((BUILTIN_PROFILES as readonly string[]).includes(spec)) {
    let p = builtinCache.get(spec)
    if (!p) {
      p = parseProfile(readJson(join(profilesDir, `${spec}.json`), `built-in profile ${spec}`), spec)
      builtinCache.set(spec, p)
    }
    return p
  }
  if (spec.includes('/') || spec.endsWith('.json')) return parseProfile(readJson(spec, 'profile file'), spec)
  throw new PolicyError(`unknown profile '${spec}' (built-in: ${BUILTIN_PROFILES.join(', ')}; or a path to a .json file)`, {
    where: 'profile',
  })
}
