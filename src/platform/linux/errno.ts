/** errno numbers → their names (EPERM, …), for typed errors and reports. */
import { constants } from 'node:os'

const errnoNames = new Map(Object.entries(constants.errno).map(([k, v]) => [v, k]))
export const errnoName = (n: number): string => errnoNames.get(n) ?? `E${n}`
