// Cross-build the win32-x64 prebuild on Linux with mingw-w64 (prebuildify
// cannot drive a cross build): the N-API addon (cordon.node) and the
// launcher (cordon-launcher.exe), stamped like every other prebuild
// (SOURCE_HASH.json: source hash, each binary's sha256, toolchain, flags).
//
//   node scripts/build-win32.mjs [OUT_DIR]   build into OUT_DIR (default prebuilds/win32-x64)
//   node scripts/build-win32.mjs --check     rebuild in a temp dir and compare with prebuilds/win32-x64
//
// Needs (Debian/Ubuntu): apt-get install gcc-mingw-w64-x86-64-posix g++-mingw-w64-x86-64-posix
// (binutils-mingw-w64-x86-64 and mingw-w64-x86-64-dev come with them).
//
// The posix-threads g++ with -static: node-addon-api's napi.h needs
// std::mutex, which the win32-threads variant lacks; -static links
// libstdc++, libgcc and winpthread into the addon, so it needs no DLL
// beside it. The addon imports the Node-API functions from node.exe through
// an import library made from node-api-headers' def/node_api.def.
//
// Deterministic: sources by relative path in sorted order, -ffile-prefix-map
// for every absolute path, no PE timestamp (--no-insert-timestamp), symbols
// stripped (-s), and the import library is an input only of the link.
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { nativeSourceHash, root } from './native-hash.mjs'

const require = createRequire(import.meta.url)
const TRIPLE = 'x86_64-w64-mingw32'
const CC = `${TRIPLE}-gcc-posix`
const CXX = `${TRIPLE}-g++-posix`
const DLLTOOL = `${TRIPLE}-dlltool`
const STAMP = 'SOURCE_HASH.json'

const common = ['-O2', '-fstack-protector-strong', '-D_FORTIFY_SOURCE=2', '-Wall', '-Wextra', '-Wno-unused-parameter', '-D_WIN32_WINNT=0x0A00', `-ffile-prefix-map=${root}=`, '-Wdate-time']
// -fstack-protector-strong links libssp (mingw's stack protector and _FORTIFY_SOURCE checks). ASLR (high entropy), DEP: on by default in binutils ≥ 2.36, named here so no toolchain default can drop them.
const peFlags = ['-fstack-protector-strong', '-Wl,--dynamicbase', '-Wl,--nxcompat', '-Wl,--high-entropy-va', '-Wl,--no-insert-timestamp', '-s', '-static']
const launcherSources = readdirSync(join(root, 'native/win32')).filter((f) => f.endsWith('.c') && f !== 'probe.c').sort().map((f) => `native/win32/${f}`)

// Keyed like every prebuild's stamp (test/native/prebuild-fresh.test.ts): by target, not file name.
const FLAGS = {
  'cordon-launcher': {
    compile: [...common, '-std=gnu11', '-Werror', '-Inative/include'],
    link: [...peFlags, '-ladvapi32'],
  },
  'cordon.node': {
    compile: [...common, '-DNAPI_VERSION=8', '-DNAPI_DISABLE_CPP_EXCEPTIONS', '-DNODE_ADDON_API_DISABLE_DEPRECATED', '-Inative/include'],
    // ld would derive a DLL's base from a hash of its output path (--enable-auto-image-base): a fixed one, relocated by ASLR anyway.
    link: [...peFlags, '-shared', '-Wl,--disable-auto-image-base'],
  },
}

function tool(name) {
  try {
    return execFileSync(name, ['--version'], { encoding: 'utf8' }).split('\n')[0]
  } catch {
    throw new Error(`${name} not found: apt-get install gcc-mingw-w64-x86-64-posix g++-mingw-w64-x86-64-posix`)
  }
}

// The compiler's own temp files go into the build's work dir (removed with it), never into the caller's TMPDIR.
let workDir
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, TMPDIR: workDir ?? tmpdir() } })

function buildLauncher(out) {
  const f = FLAGS['cordon-launcher']
  run(CC, [...f.compile, ...launcherSources, '-o', join(out, 'cordon-launcher.exe'), ...f.link])
}

function buildAddon(out, work) {
  const f = FLAGS['cordon.node']
  const headers = dirname(require.resolve('node-api-headers/package.json'))
  const addonApi = require('node-addon-api').include_dir
  const lib = join(work, 'libnode.a')
  // Node-API lives in node.exe itself: the import library names it as the DLL.
  run(DLLTOOL, ['-d', relative(root, join(headers, 'def', 'node_api.def')), '-l', lib, '-D', 'node.exe'])
  const inc = [`-I${relative(root, join(headers, 'include'))}`, `-I${relative(root, addonApi)}`, `-ffile-prefix-map=${headers}=node-api-headers`]
  const objs = []
  for (const src of ['native/common/err.c', 'native/win32/probe.c']) {
    const obj = join(work, src.replaceAll('/', '_') + '.o')
    run(CC, [...f.compile, '-std=gnu11', ...inc, '-c', src, '-o', obj])
    objs.push(obj)
  }
  const obj = join(work, 'binding.o')
  run(CXX, [...f.compile, '-std=c++17', '-fno-exceptions', '-fvisibility=hidden', ...inc, '-c', 'native/binding.cc', '-o', obj])
  run(CXX, [obj, ...objs, lib, '-o', join(out, 'cordon.node'), ...f.link])
}

const sha256 = (file) => createHash('sha256').update(readFileSync(file)).digest('hex')

function stamp(out) {
  const binaries = ['cordon-launcher.exe', 'cordon.node']
  const s = {
    sourceHash: nativeSourceHash(),
    files: [...binaries, STAMP].sort(),
    sha256: Object.fromEntries(binaries.map((b) => [b, sha256(join(out, b))])),
    toolchain: {
      tools: { cc: tool(CC), 'c++': tool(CXX), dlltool: tool(DLLTOOL) },
      headers: { 'node-api-headers': require('node-api-headers/package.json').version, 'node-addon-api': require('node-addon-api/package.json').version },
      flags: FLAGS,
    },
  }
  writeFileSync(join(out, STAMP), JSON.stringify(s, null, 2) + '\n')
}

export function buildWin32(out) {
  mkdirSync(out, { recursive: true })
  const work = mkdtempSync(join(tmpdir(), 'cordon-win32-build-'))
  workDir = work
  try {
    buildLauncher(out)
    buildAddon(out, work)
    stamp(out)
  } finally {
    rmSync(work, { recursive: true, force: true })
    workDir = undefined
  }
}

function check() {
  const committed = join(root, 'prebuilds', 'win32-x64')
  if (!existsSync(join(committed, STAMP))) {
    console.log('prebuilds/win32-x64: none committed')
    return 0
  }
  const committedStamp = JSON.parse(readFileSync(join(committed, STAMP), 'utf8'))
  if (committedStamp.sourceHash !== nativeSourceHash()) {
    console.log('prebuilds/win32-x64: STALE (built from other native sources): run node scripts/build-win32.mjs and commit')
    return 1
  }
  // A prebuild made natively on Windows (MSVC, the windows-2022 CI job) cannot be reproduced here: its source hash is what can be checked.
  if (!String(committedStamp.toolchain?.tools?.cc ?? '').includes('mingw')) {
    console.log('prebuilds/win32-x64: source hash matches; built natively on Windows, not rebuilt here')
    return 0
  }
  const out = mkdtempSync(join(tmpdir(), 'cordon-win32-check-'))
  try {
    buildWin32(out)
    const differ = ['cordon-launcher.exe', 'cordon.node'].filter((b) => sha256(join(committed, b)) !== sha256(join(out, b)))
    if (differ.length === 0) console.log('prebuilds/win32-x64: reproduced byte for byte from the sources')
    else console.log(`prebuilds/win32-x64: NOT REPRODUCED (${differ.join(', ')} differ): run node scripts/build-win32.mjs and commit`)
    return differ.length === 0 ? 0 : 1
  } finally {
    rmSync(out, { recursive: true, force: true })
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop())) {
  if (process.argv[2] === '--check') process.exitCode = check()
  else buildWin32(process.argv[2] ? resolve(process.argv[2]) : join(root, 'prebuilds', 'win32-x64'))
}
