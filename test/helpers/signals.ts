/** What node:child_process reports for a child a signal ended: the reference for cordon's signal names. */
import { spawnSync } from 'node:child_process'
import { constants } from 'node:os'

/** Signals whose default action stops the shell instead of ending it (its parent would wait forever). */
const STOPS = new Set(['SIGSTOP', 'SIGTSTP', 'SIGTTIN', 'SIGTTOU'])

/**
 * Each signal number in os.constants.signals that ends a process, with the
 * name node:child_process gives a child it ended (`sh -c 'kill -N $$'`).
 * Signals ignored by default (SIGCHLD, SIGCONT, SIGURG, SIGWINCH) end nothing
 * and are left out.
 */
export function nodeSignalNames(): Map<number, NodeJS.Signals> {
  const names = new Map<number, NodeJS.Signals>()
  for (const [name, n] of Object.entries(constants.signals)) {
    if (STOPS.has(name) || names.has(n)) continue
    const r = spawnSync('sh', ['-c', `kill -${n} $$`])
    if (r.signal) names.set(n, r.signal)
  }
  return names
}
