/**
 * vitest setupFile: a test worker ends with a normal exit, not a signal
 * death. tinypool stops each forked worker with SIGTERM, and a process that
 * dies by a signal skips its 'exit' handlers — where the SDK removes the
 * private launcher copy it may have made in TMPDIR (src/native/load.ts,
 * launcherFor). A program that ends normally runs them; so does a worker.
 */
const installed = Symbol.for('cordon.test.exitOnSigterm')
const flags = globalThis as { [installed]?: boolean }
if (!flags[installed]) {
  flags[installed] = true
  process.once('SIGTERM', () => process.exit(128 + 15))
}
