/**
 * The Seatbelt profile (SBPL) of one launch, generated from the same
 * resolved permission profile the Linux backend confines with.
 *
 * Shape, in order. Every deny comes after the allows it carves out of and
 * is narrower than they are, so it holds whether Seatbelt lets the last
 * matching rule win or the more specific one (its users report both
 * readings; not yet observed on macOS):
 *   (version 1)
 *   (deny default (with message "cordon-<run>"))  everything not allowed,
 *                                                  tagged for attribution
 *   base rules (profiles/darwin/base.json), each under its reason
 *   reads: everything, or the read roots (+ the system's own files)
 *   writes: the write roots only
 *   network: nothing / the proxy port on localhost / IP / everything
 *   deny-read paths and globs (read, write, exec), and their ancestors
 *     inside write roots kept from being renamed (a rename would move the
 *     secret out from under the rule)
 *   protected paths: no write as literal and as subpath (a missing
 *     `.git/hooks` cannot be created), ancestors kept from unlink/rename
 */
import { dirname } from 'node:path'
import type { ResolvedPolicy } from '../../profile/resolve.js'
import { isWithin } from '../../profile/paths.js'
import type { BaseRule } from './base-policy.js'
import { globToRegex } from './glob-regex.js'
import { pathFilters, type PathFilter } from './path-filters.js'
import { sbplString } from './sbpl-string.js'

/** What the command may reach over the network. `proxy`: only the given port on localhost. */
export type SeatbeltNetwork = { kind: 'off' } | { kind: 'proxy'; port: number } | { kind: 'inet' } | { kind: 'on' }

export interface SeatbeltInput {
  policy: Pick<ResolvedPolicy, 'profileName' | 'readAll' | 'readRoots' | 'writeRoots' | 'denyRead' | 'denyGlobs' | 'protectedPaths'>
  network: SeatbeltNetwork
  /** The run's tag: every denial's log line carries it (`cordon-<hex>`). */
  tag: string
  base: readonly BaseRule[]
}

const READ = 'file-read*'
const WRITE = 'file-write*'

/** One rule over path filters, or nothing when there are none. */
function rule(action: 'allow' | 'deny', ops: string, filters: readonly string[]): string[] {
  if (!filters.length) return []
  const last = filters.length - 1
  return [`(${action} ${ops}`, ...filters.map((f, i) => `  ${f}${i === last ? ')' : ''}`)]
}

const subpaths = (paths: readonly string[]): PathFilter[] => paths.map((path) => ({ kind: 'subpath', path }))
const literals = (paths: readonly string[]): PathFilter[] => paths.map((path) => ({ kind: 'literal', path }))

/** Ancestors of `paths` that lie inside a write root (the root itself included): the ones a command could rename. */
export function writableAncestors(paths: readonly string[], writeRoots: readonly string[]): string[] {
  const out = new Set<string>()
  for (const p of paths) {
    for (let a = dirname(p); ; a = dirname(a)) {
      if (writeRoots.some((w) => isWithin(a, w))) out.add(a)
      if (a === '/') break
    }
  }
  return [...out]
}

function baseSection(base: readonly BaseRule[], input: SeatbeltInput): string[] {
  const { policy, network } = input
  const on = (r: BaseRule) =>
    r.when === 'always' || (r.when === 'read-roots' && !policy.readAll) || (r.when === 'network' && (network.kind === 'inet' || network.kind === 'on')) || (r.when === 'inet' && network.kind === 'inet')
  return base.filter(on).flatMap((r) => [`; ${r.reason}`, r.sbpl])
}

function readSection(policy: SeatbeltInput['policy']): string[] {
  if (policy.readAll) return ['; reads: the whole filesystem (minus the denied paths below); exec of what may be read', `(allow ${READ} process-exec)`]
  return ['; reads: the read roots and the write roots; exec of what may be read', ...rule('allow', `${READ} process-exec`, pathFilters(subpaths([...policy.readRoots, ...policy.writeRoots]), 'read root'))]
}

function writeSection(policy: SeatbeltInput['policy']): string[] {
  if (!policy.writeRoots.length) return ['; writes: none']
  return ['; writes: the write roots only', ...rule('allow', WRITE, pathFilters(subpaths(policy.writeRoots), 'write root'))]
}

function networkSection(network: SeatbeltNetwork): string[] {
  switch (network.kind) {
    case 'off':
      return ['; network: off (deny default)']
    case 'proxy':
      return [`; network: only the proxy on localhost:${network.port}`, `(allow network-outbound (remote ip ${sbplString(`localhost:${network.port}`)}))`]
    case 'inet':
      return ['; network: every host over IP; no host unix socket but name resolution (base rule)', '(allow network-outbound (remote ip "*:*"))', '(allow network-inbound network-bind (local ip "*:*"))']
    case 'on':
      return ['; network: everything, local sockets included', '(allow network*)']
  }
}

function denySection(policy: SeatbeltInput['policy']): string[] {
  const out: string[] = []
  // A subpath matches the path itself too: one filter per denied path.
  if (policy.denyRead.length) out.push('; denied paths: no read, write or exec of them or below them')
  out.push(...rule('deny', `${READ} ${WRITE} process-exec`, pathFilters(subpaths(policy.denyRead), 'deny-read path')))
  if (policy.denyGlobs.length) out.push('; denied globs: checked on every open, so files created later are denied too')
  out.push(...rule('deny', `${READ} ${WRITE} process-exec`, policy.denyGlobs.map((g) => `(regex ${sbplString(globToRegex(g), 'deny-read glob')})`)))
  const ancestors = writableAncestors(policy.denyRead, policy.writeRoots)
  if (ancestors.length) out.push('; their writable ancestors cannot be renamed or removed (a rename would carry a denied file out from under its rule)')
  out.push(...rule('deny', 'file-write-unlink', pathFilters(literals(ancestors), 'deny-read ancestor')))
  return out
}

function protectedSection(policy: SeatbeltInput['policy']): string[] {
  const paths = policy.protectedPaths
  if (!paths.length) return []
  return [
    '; protected paths: read-only inside the write roots, whether or not they exist yet',
    ...rule('deny', WRITE, pathFilters([...literals(paths), ...subpaths(paths)], 'protected path')),
    '; their ancestors inside write roots cannot be renamed or removed (a rename would move the protected path out from under its rule)',
    ...rule('deny', 'file-write-unlink', pathFilters(literals(writableAncestors(paths, policy.writeRoots)), 'protected ancestor')),
  ]
}

/** The whole profile text. Throws a PolicyError for a path no SBPL string can hold. */
export function seatbeltProfile(input: SeatbeltInput): string {
  const { policy } = input
  const lines = [
    '(version 1)',
    `; cordon: profile ${policy.profileName.replace(/[\r\n]/g, ' ')}, generated from the permission profile (src/platform/darwin/sbpl.ts)`,
    '; every operation not allowed below is denied, and the denial is logged with this run\'s tag',
    `(deny default (with message ${sbplString(input.tag, 'run tag')}))`,
    ...baseSection(input.base, input),
    ...readSection(policy),
    ...writeSection(policy),
    ...networkSection(input.network),
    ...denySection(policy),
    ...protectedSection(policy),
  ]
  return `${lines.join('\n')}\n`
}
