/**
 * A Node built-in module loaded on first use. Every backend is linked into
 * the package (src/platform/index.ts picks one synchronously), and the
 * network allowlist's modules are linked into every sandbox: loading
 * node:child_process, node:crypto or node:net at import would cost each
 * `cordon run` on Linux milliseconds for code that never runs there.
 */
import { createRequire } from 'node:module'

const load = createRequire(import.meta.url)

export function builtin<T>(name: string): () => T {
  let mod: T | undefined
  return () => (mod ??= load(name) as T)
}
