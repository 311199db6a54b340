/**
 * The wire protocol between this side, the addon, the launcher and its
 * zygote: the TypeScript copy of native/include/cordon-wire.h, which says
 * why each value is what it is. Defined here once, for launch.ts and
 * zygote.ts; test/native/wire-contract.test.ts fails when any value differs
 * from the addon's (`binding.wire`). Kept as literals rather than read from
 * the addon, so that nothing loads native code just to know a descriptor
 * number.
 */
import type { NativeWire } from '../../../native/binding.js'

export const WIRE = {
  arg: { zygote: '--zygote', planFd: '--plan-fd', statusFd: '--status-fd' },
  fd: { plan: 3, status: 4, childCount: 5, zygoteRequests: 3, zygoteEvents: 4, maxPerRequest: 64, maxCgroups: 8 },
  limit: { requestBytes: 160 * 1024, requestFields: 4096, planBytes: 64 * 1024 * 1024 },
  exit: { setup: 125, cannotExecute: 126, notFound: 127 },
  request: { launch: 'L', exec: 'X', kill: 'K', join: 'J', version: 'V', killGroup: 'g', killProcess: 'p' },
  zygote: { protocol: 2 },
  plan: { version: 1 },
  status: {
    setup: ['ok', 'landlockAbi', 'fsHandled', 'netHandled', 'scoped', 'logFlags', 'seccompRules', 'noNewPrivs', 'capsDropped', 'boundingDropped', 'skippedRules', 'metadata'],
    error: ['ok', 'step', 'syscall', 'errno', 'detail'],
    exit: ['exit', 'code', 'signal', 'lost'],
  },
} as const satisfies NativeWire
