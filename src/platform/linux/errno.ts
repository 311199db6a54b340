/** errno and signal numbers → their names (EPERM, SIGKILL, …), for typed errors and reports. */
import { constants } from 'node:os'

const errnoNames = new Map(Object.entries(constants.errno).map(([k, v]) => [v, k]))
const signalNames = new Map(Object.entries(constants.signals).map(([k, v]) => [v, k as NodeJS.Signals]))

export const errnoName = (n: number): string => errnoNames.get(n) ?? `E${n}`
/** undefined for a number this platform has no name for. */
export const signalName = (n: number): NodeJS.Signals | undefined => signalNames.get(n)
