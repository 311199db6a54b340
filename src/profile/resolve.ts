/**
 * Resolve a validated profile against a concrete launch: expand variables,
 * canonicalise every path (refusing planted symlinks), expand deny globs,
 * build the environment. The result is what the platform backends consume.
 */
import { statSync } from 'node:fs'
import { PolicyError } from '../errors.js'
import { proxyEnv } from '../network/proxy-env.js'
import { buildEnv } from './env.js'
import { expandDenyGlobs } from './globs.js'
import { canonicalize, canonicalWriteRoots, dedupeRoots, expandPath, hasGlob, type CanonCache, type ExpandContext } from './paths.js'
import { builtinSecretDenies } from './profiles.js'
import type { NetworkAllowlist, Profile } from './schema.js'

/** `proxy`: only through cordon's network proxy, which applies `allowlist` (docs/network.md). */
export type NetworkLevel = 'off' | 'inet' | 'on' | 'proxy'

export interface ResolvedPolicy {
  profileName: string
  cwd: string
  tmpdir: string
  readAll: boolean
  readRoots: string[]
  writeRoots: string[]
  denyRead: string[]
  denyGlobs: string[]
  denyGlobsTruncated: boolean
  protectedPaths: string[]
  network: NetworkLevel
  /** With network `proxy`: the hosts the proxy decides on, as the profile wrote them. */
  allowlist?: NetworkAllowlist
  /** With network `proxy`: the loopback port the proxy listens on (set once it listens). */
  proxyPort?: number
  /** With network `proxy`: the proxy's unix socket, for namespace mode's forwarder. */
  proxySocket?: string
  env: Record<string, string>
  envDropped: string[]
  limits: Profile['limits']
  unsandboxed: boolean
}

export interface ResolveInput {
  profile: Profile
  profileName: string
  cwd: string
  tmpdir: string
  baseEnv: NodeJS.ProcessEnv
  home?: string
  /** With a network allowlist: the port of the proxy serving this sandbox. */
  proxyPort?: number
  /** ... and its unix socket (namespace mode binds it into the sandbox). */
  proxySocket?: string
  /** ... and the credential its TCP port asks for (in the proxy URLs of the environment). */
  proxyToken?: string
  /** Per-sandbox cache of canonical paths outside writable roots. */
  cache?: CanonCache
}

function checkCwd(cwd: string): void {
  let st
  try {
    st = statSync(cwd)
  } catch (cause) {
    throw new PolicyError(`working directory ${cwd} does not exist`, { where: 'cwd', cause })
  }
  if (!st.isDirectory()) throw new PolicyError(`working directory ${cwd} is not a directory`, { where: 'cwd' })
}

function splitDenies(raw: readonly string[], ctx: ExpandContext, writeRoots: string[], cache: CanonCache | undefined) {
  const paths: string[] = []
  const globs: string[] = []
  for (const r of raw) {
    const abs = expandPath(r, ctx)
    if (hasGlob(abs)) globs.push(abs)
    else paths.push(canonicalize(abs, writeRoots, 'deny-read path', cache))
  }
  const expanded = expandDenyGlobs(globs)
  for (const m of expanded.matches) paths.push(canonicalize(m, writeRoots, 'deny-read match'))
  return { paths: [...new Set(paths)], globs, truncated: expanded.truncated }
}

export function resolvePolicy(input: ResolveInput): ResolvedPolicy {
  const { profile } = input
  checkCwd(input.cwd)
  const ctx: ExpandContext = { cwd: input.cwd, tmpdir: input.tmpdir, ...(input.home ? { home: input.home } : {}) }
  const fs = profile.filesystem
  const writeRoots = canonicalWriteRoots(fs.write.map((p) => expandPath(p, ctx)))
  const readAll = fs.read === 'all'
  const readRoots = readAll ? ['/'] : dedupeRoots((fs.read as string[]).map((p) => canonicalize(expandPath(p, ctx), writeRoots, 'read root')))
  const denies = splitDenies([...(fs.denySecrets ? builtinSecretDenies() : []), ...fs.denyRead], ctx, writeRoots, input.cache)
  const protectedPaths = [...new Set(fs.protected.map((p) => canonicalize(expandPath(p, ctx), writeRoots, 'protected path', input.cache)))]
  const { env, dropped } = buildEnv(input.baseEnv, profile.env, input.tmpdir ? { TMPDIR: input.tmpdir } : {})
  return {
    profileName: input.profileName,
    cwd: canonicalize(input.cwd, [], 'cwd', input.cache),
    tmpdir: input.tmpdir,
    readAll,
    readRoots,
    writeRoots,
    denyRead: denies.paths,
    denyGlobs: denies.globs,
    denyGlobsTruncated: denies.truncated,
    protectedPaths,
    network: typeof profile.network === 'string' ? profile.network : 'proxy',
    ...(typeof profile.network === 'object' ? { allowlist: profile.network } : {}),
    ...(typeof profile.network === 'object' && input.proxyPort !== undefined ? { proxyPort: input.proxyPort } : {}),
    ...(typeof profile.network === 'object' && input.proxySocket !== undefined ? { proxySocket: input.proxySocket } : {}),
    env: typeof profile.network === 'object' && input.proxyPort !== undefined ? proxyEnv(input.proxyPort, env, input.proxyToken) : env,
    envDropped: dropped,
    limits: profile.limits,
    unsandboxed: profile.unsandboxed,
  }
}
