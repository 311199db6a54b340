/** errno and signal numbers → their names (EPERM, SIGKILL, …), for typed errors and reports. */
import { constants } from 'node:os'

// Built on the first lookup: a run that ends normally never needs a name,
// and `cordon run` would otherwise build both tables at every start.
let errnoNames: Map<number, string> | undefined
let signalNames: Map<number, NodeJS.Signals> | undefined

/**
 * Number → name, the first name listed for a number winning. os.constants
 * lists the usual name before its aliases (SIGABRT before SIGIOT, SIGIO
 * before SIGPOLL, EAGAIN before EWOULDBLOCK, ENOTSUP before EOPNOTSUPP), and
 * the usual name is the one Node reports (a child's `signalCode`, libuv's
 * error codes). A later alias must not overwrite it.
 */
function firstNames<T extends string>(table: Readonly<Record<string, number>>): Map<number, T> {
  const names = new Map<number, T>()
  for (const [name, n] of Object.entries(table)) if (!names.has(n)) names.set(n, name as T)
  return names
}

/** `E<n>` for a number this platform has no name for. */
export const errnoName = (n: number): string => (errnoNames ??= firstNames(constants.errno)).get(n) ?? `E${n}`
/** undefined for a number this platform has no name for. */
export const signalName = (n: number): NodeJS.Signals | undefined => (signalNames ??= firstNames<NodeJS.Signals>(constants.signals)).get(n)
