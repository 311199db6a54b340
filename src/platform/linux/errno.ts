/** errno and signal numbers → their names (EPERM, SIGKILL, …), for typed errors and reports. */
import { constants } from 'node:os'

// Built on the first lookup: a run that ends normally never needs a name,
// and `cordon run` would otherwise build both tables at every start.
let errnoNames: Map<number, string> | undefined
let signalNames: Map<number, NodeJS.Signals> | undefined

export const errnoName = (n: number): string =>
  (errnoNames ??= new Map(Object.entries(constants.errno).map(([k, v]) => [v, k]))).get(n) ?? `E${n}`
/** undefined for a number this platform has no name for. */
export const signalName = (n: number): NodeJS.Signals | undefined =>
  (signalNames ??= new Map(Object.entries(constants.signals).map(([k, v]) => [v, k as NodeJS.Signals]))).get(n)
