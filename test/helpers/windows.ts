/**
 * Running the Windows backend from the tests: natively on Windows, under
 * Wine on Linux. Under Wine, Windows' node.exe (scripts/wine-setup.sh puts
 * it in .wine/ of the clone, with the Wine prefix) runs test/win32/driver.mjs
 * against a staged install of cordon: package.json, copies of dist/ and profiles/, the
 * win32-x64 prebuild cross-built from the sources in this tree (rebuilt
 * whenever native/ changed), and node_modules.
 */
import { spawn, spawnSync } from 'node:child_process'
import { closeSync, copyFileSync, cpSync, existsSync, mkdirSync, openSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Missing } from './host.js'
import { repoRoot } from './paths.js'

export const onWindows = process.platform === 'win32'
export const WINE_DIR = join(repoRoot, '.wine')
const NODE_EXE = join(WINE_DIR, 'node.exe')
const PREFIX = join(WINE_DIR, 'prefix')
const MINGW_CC = 'x86_64-w64-mingw32-gcc-posix'
const FIX = 'apt-get install wine wine64 gcc-mingw-w64-x86-64-posix g++-mingw-w64-x86-64-posix, then scripts/wine-setup.sh'

const onPath = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0

/** Why the Windows backend cannot be run here (absent: it can, natively or under Wine). */
export function windowsMissing(): Missing | undefined {
  if (onWindows) return undefined
  if (process.platform !== 'linux') return { reason: 'the Windows backend is tested natively on Windows, or under Wine on Linux' }
  if (!onPath('wine')) return { requirement: 'wine', reason: `Wine not installed: ${FIX}` }
  if (!onPath(MINGW_CC)) return { requirement: 'wine', reason: `mingw-w64 not installed (the win32 build and the probe): ${FIX}` }
  if (!existsSync(NODE_EXE) || !existsSync(join(PREFIX, 'system.reg'))) return { requirement: 'wine', reason: "Windows' node.exe or the Wine prefix is missing: run scripts/wine-setup.sh" }
  return undefined
}

/** The path as the Windows side sees it (Wine maps / to drive Z:). */
export const winPath = (p: string): string => (onWindows ? p : `Z:${p.replaceAll('/', '\\')}`)

/** Wine's own temp files go into .wine/tmp, not the test run's temp root (which must end empty). */
function wineEnv(): NodeJS.ProcessEnv {
  const tmp = join(WINE_DIR, 'tmp')
  mkdirSync(tmp, { recursive: true })
  return { ...process.env, WINEPREFIX: PREFIX, WINEDEBUG: '-all', WINEDLLOVERRIDES: 'mscoree,mshtml=', TMPDIR: tmp }
}

/** The win32-x64 prebuild of the sources in this tree, cross-built once per change of native/ (in .wine/prebuild). */
async function prebuild(): Promise<string> {
  const out = join(WINE_DIR, 'prebuild')
  // @ts-expect-error plain ESM script without types
  const { nativeSourceHash } = (await import('../../scripts/native-hash.mjs')) as { nativeSourceHash: () => string }
  const stampFile = join(out, 'SOURCE_HASH.json')
  const stamp = existsSync(stampFile) ? (JSON.parse(readFileSync(stampFile, 'utf8')) as { sourceHash: string }) : undefined
  if (stamp?.sourceHash !== nativeSourceHash()) {
    // @ts-expect-error plain ESM script without types
    const { buildWin32 } = (await import('../../scripts/build-win32.mjs')) as { buildWin32: (out: string) => void }
    buildWin32(out)
  }
  return out
}

/** A staged install of cordon in `dir` (a temp dir of the test's), or this checkout on Windows. */
export async function stageCordon(dir: string): Promise<string> {
  if (onWindows) return repoRoot
  if (!existsSync(join(repoRoot, 'dist', 'platform', 'win32', 'index.js'))) throw new Error('dist/ is not built: run npm run build')
  const built = await prebuild()
  mkdirSync(dir, { recursive: true })
  copyFileSync(join(repoRoot, 'package.json'), join(dir, 'package.json'))
  // A copy, not a link: Node resolves a module's real path, and from the checkout's dist/ it would find build/Release (a Linux binary).
  cpSync(join(repoRoot, 'dist'), join(dir, 'dist'), { recursive: true })
  cpSync(join(repoRoot, 'profiles'), join(dir, 'profiles'), { recursive: true }) // the built-in profiles createSandbox() reads
  symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'))
  mkdirSync(join(dir, 'prebuilds', 'win32-x64'), { recursive: true })
  for (const f of ['cordon.node', 'cordon-launcher.exe']) copyFileSync(join(built, f), join(dir, 'prebuilds', 'win32-x64', f))
  return dir
}

/** Compile a C fixture for Windows into `dir` (mingw-w64 under Linux, gcc from MinGW on Windows). */
export function compileWindows(source: string, out: string, libs: string[]): void {
  const r = spawnSync(onWindows ? 'gcc' : MINGW_CC, ['-O2', '-Wall', '-Wextra', '-Werror', '-o', out, source, ...libs.map((l) => `-l${l}`)], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`compiling ${source} failed: ${r.stderr}`)
}

/** Run test/win32/driver.mjs on `req` in Windows' node, in `work` (a temp dir); its JSON result. */
export async function runDriver<T>(work: string, req: object, timeoutMs = 60_000): Promise<T> {
  const id = Math.random().toString(36).slice(2)
  const input = join(work, `in-${id}.json`)
  const output = join(work, `out-${id}.json`)
  const log = join(work, `log-${id}.txt`)
  writeFileSync(input, JSON.stringify(req))
  const driver = join(repoRoot, 'test', 'win32', 'driver.mjs')
  const [cmd, args] = onWindows ? [process.execPath, [driver, input, output]] : ['wine', [NODE_EXE, winPath(driver), winPath(input), winPath(output)]]
  const fd = openSync(log, 'w')
  // Output to a file: under Wine, node.exe's stdout on a Linux pipe fails with EBADF.
  const child = spawn(cmd, args as string[], { stdio: ['ignore', fd, fd], env: onWindows ? process.env : wineEnv() })
  closeSync(fd)
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('exit', (c) => (clearTimeout(timer), resolve(c)))
  })
  if (!existsSync(output)) throw new Error(`the driver wrote no result (exit ${code}): ${readFileSync(log, 'utf8').slice(-2000)}`)
  const result = JSON.parse(readFileSync(output, 'utf8')) as T & { driverError?: string }
  if (result.driverError) throw new Error(`driver: ${result.driverError}`)
  return result
}
