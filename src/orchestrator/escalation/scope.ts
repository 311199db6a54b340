/**
 * The real scope of a widening, as the approver reads it (issue 13 §6):
 * one line per thing the wider attempt may do that the profile does not
 * allow, saying how far it reaches — `write: / — everything`, not "retry
 * with write:/". A network widening is every host (there is no per-host
 * widening until the allowlist proxy, issue 15) and says so, naming the
 * host the output mentioned only as what it is: a claim of the output.
 * Paths and hosts are quoted (text.ts): they come from the command.
 */
import type { Enforcement } from '../../platform/enforcement.js'
import { isUnder } from '../denial/path-rules.js'
import { quote } from '../text.js'
import type { Widening } from './widen.js'

export interface ScopeContext {
  /** The attempt that was denied (its private directories: a widening there binds the host's). */
  readonly enforcement?: Enforcement
  /** The host a network denial named, and who named it. */
  readonly network?: { readonly host: string; readonly namedBy: 'output' | 'command' }
  /** cordon's rules files, named when a widening can write them. */
  readonly rulesFiles?: readonly string[]
}

const SOCKETS = 'every local (unix) socket of the host: docker.sock, D-Bus, an ssh agent'

export function scopeOf(w: Widening, ctx: ScopeContext = {}): string[] {
  if (w.unsandboxed) return ['no sandbox at all: every file this user can read or write, every host, ' + SOCKETS]
  const rules = ctx.rulesFiles?.length ? `, cordon's rules files (${ctx.rulesFiles.map((f) => quote(f)).join(', ')})` : ''
  if (w.full) {
    return [
      `write: / — everything this user can write: the home directory (shell startup files), every repository and its hooks${rules}`,
      'read: everything but the denied paths (read masks kept)',
      `network: all hosts and ${SOCKETS}`,
    ]
  }
  const lines = [...w.write.map((p) => `write: ${quote(p)} — this directory and everything below it${hostDir(p, ctx)}`), ...w.read.map((p) => `read: ${quote(p)} — this directory and everything below it`)]
  if (w.localSockets) lines.push(`network: all hosts and ${SOCKETS}`)
  else if (w.network) {
    const named = ctx.network ? ` — not only ${quote(ctx.network.host)}, which ${ctx.network.namedBy === 'output' ? "the command's output named" : 'the command names'}` : ''
    lines.push(`network: all hosts${named}; the host's unix sockets stay blocked`)
  }
  return lines
}

/** A root inside one of the attempt's private directories: the retry binds the host's directory there. */
function hostDir(p: string, ctx: ScopeContext): string {
  const priv = ctx.enforcement?.filesystem.privateDirs.find((d) => isUnder(p, d))
  return priv ? ` (the host's, not the sandbox's private ${priv}: shared with everything else on the host)` : ''
}
