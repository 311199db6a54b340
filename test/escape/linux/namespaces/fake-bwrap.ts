/**
 * Fake bubblewrap executables for the fault scenarios: each answers
 * --version and --help like bwrap 0.9 and then fails the way a real host
 * failure makes bwrap fail (same message on stderr, exit 1). Nothing on the
 * host changes; the SDK is pointed at the fake through the `bwrap` option.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** What bwrap prints on a few real hosts (kept verbatim: the diagnosis matches on them). */
export const BWRAP_FAILURES = {
  apparmor: 'bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted',
  proc: "bwrap: Can't mount proc on /newroot/proc: Operation not permitted",
  maxUserns: 'bwrap: Creating new namespace failed: nesting depth or /proc/sys/user/max_*_namespaces exceeded (ENOSPC)',
  container: 'bwrap: Creating new namespace failed: Operation not permitted',
} as const

const HELP_OPTIONS = [
  '--unshare-user', '--unshare-ipc', '--unshare-pid', '--unshare-net', '--unshare-uts', '--unshare-cgroup-try',
  '--disable-userns', '--die-with-parent', '--as-pid-1', '--cap-drop', '--clearenv', '--remount-ro', '--perms',
  '--tmpfs', '--proc', '--dev', '--ro-bind', '--bind',
]

export interface FakeBwrap {
  path: string
  cleanup(): void
}

/** A fake bwrap in a fresh directory readable by everyone (the unprivileged pass runs it too). */
export function fakeBwrap(stderr: string, opts: { version?: string; help?: string[] } = {}): FakeBwrap {
  const dir = mkdtempSync(join(tmpdir(), 'cordon-fake-bwrap-'))
  chmodSync(dir, 0o755)
  const path = join(dir, 'bwrap')
  const help = (opts.help ?? HELP_OPTIONS).map((o) => `    ${o}  (fake)`).join('\n')
  const script = [
    '#!/bin/sh',
    'case "$1" in',
    `  --version) echo 'bubblewrap ${opts.version ?? '0.9.0'}'; exit 0 ;;`,
    `  --help) cat <<'EOF'\nusage: bwrap [OPTIONS...] [--] COMMAND [ARGS...]\n${help}\nEOF\n  exit 0 ;;`,
    'esac',
    `echo '${stderr.replaceAll("'", `'"'"'`)}' >&2`,
    'exit 1',
    '',
  ].join('\n')
  writeFileSync(path, script, { mode: 0o755 })
  return { path, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}
