/**
 * The macOS launcher (native/darwin) built on Linux against the libsandbox
 * test double (test/native/fixtures/sandbox-double.c), with the same
 * warning flags as the real build (binding.gyp's hardening_cflags, -Werror
 * included). What the double saw is read back from its directory: the
 * profile passed to sandbox_init, and one line per call.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { repoRoot } from './paths.js'

export interface DarwinDouble {
  launcher: string
  /** Where the double records and reads its switches. */
  dir: string
  /** Forget what the double saw and clear its switches. */
  reset(): void
  /** Make sandbox_init fail with this message; sandbox_check say "already sandboxed". */
  failWith(message: string): void
  markSandboxed(): void
  profile(): string | undefined
  calls(): string[]
}

/** A clang on PATH (macOS's compiler: its warnings differ from gcc's), or undefined. */
export function findClang(): string | undefined {
  return ['clang', ...[19, 18, 17, 16, 15, 14].map((v) => `clang-${v}`)].find((c) => spawnSync(c, ['--version']).status === 0)
}

/** Build with `compiler` (cc by default) into `root`; clang gets macOS's stricter conversion warnings too. */
export function buildDarwinDouble(root: string, compiler = 'cc'): DarwinDouble {
  const dir = join(root, 'double')
  mkdirSync(dir)
  const launcher = join(root, 'cordon-launcher-darwin')
  const extra = compiler === 'cc' ? [] : ['-Wshorten-64-to-32', '-Wstrict-prototypes']
  const sources = readdirSync(join(repoRoot, 'native/darwin')).filter((f) => f.endsWith('.c')).map((f) => join(repoRoot, 'native/darwin', f))
  execFileSync(compiler, [
    ...extra,
    '-O2', '-fstack-protector-strong', '-D_FORTIFY_SOURCE=2', '-Wall', '-Wextra', '-Werror', '-Wno-unused-parameter', '-std=gnu11',
    `-I${join(repoRoot, 'native/include')}`, `-I${join(repoRoot, 'native/darwin')}`, `-DCORDON_DOUBLE_DIR="${dir}"`,
    '-o', launcher, ...sources, join(repoRoot, 'native/common/err.c'), join(repoRoot, 'native/common/launcher-io.c'), join(repoRoot, 'test/native/fixtures/sandbox-double.c'),
  ], { stdio: ['ignore', 'ignore', 'pipe'] })
  const read = (name: string) => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8') : undefined)
  return {
    launcher,
    dir,
    reset: () => {
      for (const f of readdirSync(dir)) rmSync(join(dir, f), { force: true })
    },
    failWith: (message) => writeFileSync(join(dir, 'fail'), message),
    markSandboxed: () => writeFileSync(join(dir, 'sandboxed'), ''),
    profile: () => read('profile.sb'),
    calls: () => (read('calls') ?? '').split('\n').filter(Boolean),
  }
}
