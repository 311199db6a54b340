/**
 * Keys for the session cache: one key names exactly what runs, so an
 * approval never answers for anything else (issue 13 §3). A key holds
 *
 * - the command: the one plain command a script runs (`bash -lc "ls -x"`
 *   and `ls -x` run the same program with the same arguments), else the
 *   exact argv — a script of several commands keeps its operators, so
 *   approving `cd dist && rm -rf src` does not approve `cd dist || rm -rf
 *   src`; an opaque script keys on its text too;
 * - the directory it runs in;
 * - its stdin, as a SHA-256 digest (the approver is shown the text): `bash`
 *   with a harmless stdin is not `bash` with `rm -rf src` on stdin;
 * - the environment variables the request adds, by name and value;
 * - whether it runs on an interactive terminal (its later input is
 *   reviewed by no one): approving `less x` does not approve `less x` on a
 *   terminal, where `!sh` can be typed;
 * - the permission level: `sandbox` (the profile), or the exact widening
 *   (`write:/x`, `no sandbox`, …). An approval of one level never covers
 *   another, wider or not;
 * - for a runtime that keys per path (apply_patch, runtime.ts), one key
 *   per (environment, path) it touches, each with all of the above: a
 *   request declaring the same path for another command is asked again.
 */
import { createHash } from 'node:crypto'
import { resolve } from 'node:path'
import type { CommandDecision } from '../../exec-policy/index.js'

/** What a request runs, as the keys see it. */
export interface RunFacts {
  readonly decision: CommandDecision
  /** The command as decided (after any PreToolUse rewrite). */
  readonly command: readonly string[]
  readonly cwd: string
  readonly input: string | undefined
  readonly env: Readonly<Record<string, string>> | undefined
  /** On a terminal whose later input is unreviewed (RuntimeDescription.interactive). */
  readonly interactive?: boolean | undefined
}

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex')
}

/** The one command a non-opaque, single-command script runs; otherwise the exact argv. */
/**
 * The one plain command a script runs, else the exact argv. A segment with
 * redirections or globs keys on the exact argv too: `cat x > /a` and
 * `cat x > /b` share an argv, and approving one must not answer the other.
 */
function commandOf(f: RunFacts): readonly string[] {
  const segments = f.decision.segments
  const only = !f.decision.opaque && segments.length === 1 ? segments[0] : undefined
  if (!only || only.redirects?.length || only.globs?.length) return f.command
  return only.argv
}

function envOf(env: RunFacts['env']): [string, string][] | null {
  const entries = Object.entries(env ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return entries.length > 0 ? entries : null
}

function facts(f: RunFacts): unknown[] {
  return [commandOf(f), f.cwd, f.input === undefined ? null : sha256(f.input), envOf(f.env), ...(f.interactive ? ['interactive'] : [])]
}

/** The level a request runs at: the profile's sandbox, or a widening (describeWidening()). */
export type Level = 'sandbox' | { readonly widening: string }

function levelOf(level: Level): string {
  return level === 'sandbox' ? 'sandbox' : `widened:${level.widening}`
}

/** The key of running this request at `level`. */
export function runKey(f: RunFacts, level: Level): string {
  return JSON.stringify(['run', levelOf(level), ...facts(f)])
}

/**
 * One key per (environment, path) a request touches, each bound to the
 * whole request: a runtime's `approval.keys` (runtime.ts) for operations
 * approved path by path (a patch; a move names both source and target).
 */
export function pathKeys(f: RunFacts, level: Level, environment: string, paths: readonly string[]): string[] {
  return paths.map((p) => JSON.stringify(['path', environment, resolve(f.cwd, p), levelOf(level), ...facts(f)]))
}
