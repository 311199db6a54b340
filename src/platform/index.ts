/**
 * The backend of this platform, made on first use. A platform without one
 * is a typed UnsupportedError at `createSandbox()`/`doctor()`, never an
 * exception at import.
 *
 * Backend modules are imported statically but do nothing at import (the
 * native addon, probes and helpers load on first use): cordon is ESM with a
 * synchronous `spawn()`, Node 20 cannot `require()` an ES module, and the CLI
 * bundle is CommonJS, which rules out a top-level `await import()`. So
 * "lazy" here is the node-pty shape — choose by `process.platform`, build on
 * first call — with the choice made at the first call, not at import.
 */
import { UnsupportedError } from '../errors.js'
import type { HostFacts, PlatformBackend } from './backend.js'
import { darwinBackend } from './darwin/index.js'
import { linuxBackend } from './linux/index.js'
import { win32Backend } from './win32/index.js'

const BACKENDS: Partial<Record<NodeJS.Platform, () => PlatformBackend>> = {
  linux: linuxBackend,
  darwin: () => darwinBackend(),
  win32: win32Backend,
}

const made = new Map<NodeJS.Platform, PlatformBackend>()

export function backendFor(platform: NodeJS.Platform = process.platform): PlatformBackend {
  let backend = made.get(platform)
  if (backend) return backend
  const make = BACKENDS[platform]
  if (!make) {
    throw new UnsupportedError('sandbox backend', Object.keys(BACKENDS).join(' or '), platform, 'cordon has backends for Linux, macOS and Windows only (docs/api.md#platforms)')
  }
  backend = make()
  made.set(platform, backend)
  return backend
}

/** This platform's faster reads of the caller's state (PlatformBackend.hostFacts), or undefined: none here, or no backend at all. */
export function hostFacts(): HostFacts | undefined {
  try {
    return backendFor().hostFacts
  } catch (err) {
    if (err instanceof UnsupportedError) return undefined
    throw err
  }
}

export type { EnvironmentRead, HostFacts, PlatformBackend } from './backend.js'
