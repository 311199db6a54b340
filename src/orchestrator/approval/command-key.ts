/**
 * Canonical keys for the session cache. A command's key is the list of
 * plain commands that would actually run, as the exec policy split them:
 * `bash -lc "ls"` and `ls` are the same key, `bash -lc "ls && pwd"` is
 * `[["ls"],["pwd"]]`. An opaque script keys on its exact argv (nothing
 * weaker is known about it). Escalation approvals key on the command and
 * the exact widening, so approving "network for `npm ci`" does not approve
 * "write / for `npm ci`". A patch-style request keys on each
 * (environment, path) it touches.
 */
import { resolve } from 'node:path'
import type { CommandDecision } from '../../exec-policy/index.js'

export function commandKey(decision: CommandDecision, argv: readonly string[]): string {
  if (decision.opaque) return JSON.stringify(['opaque', argv])
  return JSON.stringify(decision.segments.map((s) => s.argv))
}

export function runKey(decision: CommandDecision, argv: readonly string[]): string {
  return `run\0${commandKey(decision, argv)}`
}

export function escalationKey(decision: CommandDecision, argv: readonly string[], widening: string): string {
  return `escalate\0${widening}\0${commandKey(decision, argv)}`
}

export function patchKeys(environment: string, cwd: string, paths: readonly string[]): string[] {
  return paths.map((p) => `patch\0${JSON.stringify([environment, resolve(cwd, p)])}`)
}
