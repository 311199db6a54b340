// What the native build is made from, recorded beside each prebuild
// (stamp-prebuild.mjs) and compared by check-prebuild.mjs and the test suite:
//  - nativeSourceHash(): every source input (native/**, binding.gyp), so a
//    committed prebuild can never silently be older than the sources;
//  - toolchainOf(buildDir): everything else that reaches the binaries (the
//    compiler, linker and strip, the static libraries linked in, the Node
//    headers the addon includes, the flags that actually ran), so that when
//    a rebuild of the committed sources differs from the committed binaries,
//    the check can say which of these changed.
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = fileURLToPath(new URL('..', import.meta.url))

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name)
    return e.isDirectory() ? files(p) : [p]
  })
}

/** The source inputs of the native build, relative to `from`. */
export function nativeInputs(from = root) {
  return [...files(join(from, 'native')), join(from, 'binding.gyp')].map((f) => relative(from, f)).sort()
}

export function nativeSourceHash(from = root) {
  const h = createHash('sha256')
  for (const f of nativeInputs(from)) {
    h.update(f + '\0')
    h.update(readFileSync(join(from, f)))
    h.update('\0')
  }
  return h.digest('hex')
}

const sha256 = (data) => createHash('sha256').update(data).digest('hex')
const run = (cmd, args) => {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
  } catch {
    return undefined
  }
}
const firstLine = (cmd) => run(cmd, ['--version'])?.split('\n')[0]

/** A file the compiler would use (`cc -print-file-name=libc.a`), resolved; undefined when it has none. */
function toolchainFile(args) {
  const p = run('cc', args)
  return p && p.startsWith('/') && existsSync(p) ? realpathSync(p) : undefined
}

function onPath(name) {
  const p = run('sh', ['-c', `command -v ${name}`])
  return p && p.startsWith('/') ? realpathSync(p) : undefined
}

/**
 * The libraries linked into the binaries: libc, libgcc and the start files
 * into the static launcher, libseccomp into the addon. Hashed, since a
 * distribution's security update changes them under the same name.
 */
function libraries() {
  const libs = { 'libc.a': ['-print-file-name=libc.a'], 'libseccomp.a': ['-print-file-name=libseccomp.a'], 'libgcc.a': ['-print-libgcc-file-name'], 'libgcc_eh.a': ['-print-file-name=libgcc_eh.a'], 'rcrt1.o': ['-print-file-name=rcrt1.o'] }
  return Object.fromEntries(Object.entries(libs).map(([name, args]) => {
    const p = toolchainFile(args)
    return [name, p ? sha256(readFileSync(p)).slice(0, 16) : 'missing']
  }))
}

/**
 * On Debian and its derivatives: the packages that own the compiler, the
 * linker, the libraries and the system headers, with their versions. They
 * also cover the headers (glibc's, the kernel's UAPI, libseccomp's), which
 * are not hashed one by one.
 */
function packages(nodeDir) {
  if (!run('dpkg-query', ['--version'])) return undefined
  const owned = [
    onPath('cc'), onPath('c++'), onPath('ld'), onPath('strip'), toolchainFile(['-print-prog-name=cc1']),
    toolchainFile(['-print-file-name=libc.a']), toolchainFile(['-print-file-name=libseccomp.a']), toolchainFile(['-print-libgcc-file-name']),
    '/usr/include/stdio.h', '/usr/include/linux/seccomp.h', '/usr/include/seccomp.h', nodeDir && join(nodeDir, 'include/node/node_api.h'),
  ].filter((p) => p && existsSync(p))
  const names = new Set()
  for (const p of owned) {
    const line = run('dpkg-query', ['-S', p])
    if (line) for (const pkg of line.split(':')[0].split(', ')) names.add(pkg.trim())
  }
  return Object.fromEntries([...names].sort().map((pkg) => [pkg, run('dpkg-query', ['-W', '-f=${Version}', pkg]) ?? 'unknown']))
}

/** Every make-style dependency file node-gyp's build left, by the target it belongs to. */
function depFiles(buildDir) {
  const deps = join(buildDir, 'Release', '.deps', 'Release')
  if (!existsSync(deps)) return []
  return files(deps).filter((f) => f.endsWith('.d'))
}

const targetOf = (depFile) => (/cordon-launcher/.test(depFile) ? 'cordon-launcher' : 'cordon.node')

/**
 * The flags of every compile and link that ran, from the command lines gyp
 * records in its dependency files, with paths of this checkout and of the
 * Node headers replaced by placeholders (so that the same build in another
 * directory gives the same list) and file names left out.
 */
function flags(buildDir, moduleRoot, nodeDir) {
  const out = { 'cordon.node': { compile: new Set(), link: new Set() }, 'cordon-launcher': { compile: new Set(), link: new Set() } }
  for (const f of depFiles(buildDir)) {
    const cmd = readFileSync(f, 'utf8').split('\n').find((l) => l.startsWith('cmd_'))
    const tokens = cmd?.replace(/^cmd_\S+ := /, '').split(/\s+/).map((t) => t.replace(/^'(.*)'$/, '$1')) ?? []
    if (!/(^|\/)(cc|gcc|c\+\+|g\+\+|clang|clang\+\+)$/.test(tokens[0] ?? '')) continue // a copy step, not a compile or link
    const kind = tokens.includes('-c') ? 'compile' : 'link'
    for (let i = 1; i < tokens.length; i++) {
      const t = tokens[i]
      if (t === '-o' || t === '-MF') i++ // followed by an output path
      else if (t && !/\.(c|cc|o|d|raw)$/.test(t) && t !== '-MMD') out[targetOf(f)][kind].add(normalize(t, moduleRoot, nodeDir))
    }
  }
  for (const v of Object.values(out)) for (const k of ['compile', 'link']) v[k] = [...v[k]].sort()
  return out
}

function normalize(token, moduleRoot, nodeDir) {
  let t = token.split(moduleRoot.replace(/\/$/, '')).join('<root>')
  if (nodeDir) t = t.split(nodeDir.replace(/\/$/, '')).join('<node>')
  return t
}

/** The Node headers the addon included (listed in its dependency files) and their contents' hash. */
function nodeHeaders(buildDir, nodeDir) {
  if (!nodeDir) return undefined
  const inc = join(nodeDir, 'include', 'node') + '/'
  const used = new Set()
  for (const f of depFiles(buildDir)) {
    for (const dep of readFileSync(f, 'utf8').split(/[\s\\]+/)) {
      const p = dep.replace(/:$/, '')
      if (p.startsWith(inc)) used.add(p.slice(inc.length))
    }
  }
  const list = [...used].sort()
  const h = createHash('sha256')
  for (const name of ['common.gypi', ...list]) {
    const p = join(inc, name)
    h.update(name + '\0').update(existsSync(p) ? readFileSync(p) : '').update('\0')
  }
  const versionH = existsSync(join(inc, 'node_version.h')) ? readFileSync(join(inc, 'node_version.h'), 'utf8') : ''
  const part = (name) => versionH.match(new RegExp(`#define NODE_${name}_VERSION (\\d+)`))?.[1] ?? '?'
  return { version: `${part('MAJOR')}.${part('MINOR')}.${part('PATCH')}`, files: list, sha256: h.digest('hex').slice(0, 16) }
}

/** The node-gyp configuration of a build dir: where its Node headers came from. */
function nodeDirOf(buildDir) {
  const config = join(buildDir, 'config.gypi')
  if (!existsSync(config)) return undefined
  return readFileSync(config, 'utf8').match(/"nodedir": "([^"]+)"/)?.[1]
}

/** A fingerprint of everything but the sources that went into the binaries built in `buildDir`. */
export function toolchainOf(buildDir, moduleRoot = resolve(buildDir, '..')) {
  const nodeDir = nodeDirOf(buildDir)
  return {
    tools: { cc: firstLine('cc'), 'c++': firstLine('c++'), ld: firstLine('ld'), strip: firstLine('strip') },
    packages: packages(nodeDir),
    libraries: libraries(),
    node: nodeHeaders(buildDir, nodeDir),
    flags: flags(buildDir, moduleRoot, nodeDir),
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(nativeSourceHash())
