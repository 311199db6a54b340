/**
 * The sandbox modes every escape probe runs in: Landlock-only mode, and
 * namespace mode (bubblewrap) where it works for the caller here; the same
 * probes run unchanged in both. Whether it works was found by the
 * globalSetup, with cordon's own doctor() run as each identity (host.ts).
 */
import type { Identity } from './identity.js'
import { host, type Missing } from './requirements.js'

export type TestMode = 'landlock' | 'namespaces'

export const TEST_MODES: readonly TestMode[] = ['landlock', 'namespaces']

/** Why namespace mode cannot be tested for `identity` here (undefined: it can). */
export function namespacesMissing(identity: Identity): Missing | undefined {
  return identity.missing ?? host().namespaces[identity.name]
}

/** What running in `mode` lacks for `identity` here, if anything. */
export function modeMissing(identity: Identity, mode: TestMode): Missing | undefined {
  return mode === 'namespaces' ? namespacesMissing(identity) : identity.missing
}
