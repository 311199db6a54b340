// Runs in Windows' node.exe (under Wine on Linux, natively on Windows): one
// operation of the Windows backend, its result as JSON in a file (under
// Wine, node.exe's stdout on a Linux pipe fails with EBADF).
//
//   node driver.mjs IN.json OUT.json
//   IN: { op: 'load' | 'run', stage, ... } (see the ops below)
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const [input, output] = process.argv.slice(2)
const req = JSON.parse(readFileSync(input, 'utf8'))
const dist = (p) => import(pathToFileURL(join(req.stage, 'dist', p)).href)
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

function alive(pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** The addon through node-gyp-build, as an installed cordon finds it, and through cordon's loader. */
async function load() {
  const require = createRequire(join(req.stage, 'package.json'))
  const gypBuild = require('node-gyp-build')
  const resolved = gypBuild.resolve(req.stage)
  const binding = gypBuild(req.stage)
  const { loadNative } = await dist('native/load.js')
  const native = loadNative()
  return { resolved, abiVersion: binding.abiVersion, probe: binding.win32Probe(), addonPath: native.addonPath, launcherPath: native.launcherPath, exports: Object.keys(binding).sort() }
}

async function waitForFile(path, ms) {
  for (let t = 0; t < ms && !existsSync(path); t += 50) await sleep(50)
  return existsSync(path) ? Number(readFileSync(path, 'utf8')) : undefined
}

/** The journals left in cordon's state directory (a crashed launch leaves one). */
async function journals() {
  const { stateDir, journalDir } = await dist('platform/win32/state.js')
  const dir = journalDir(stateDir())
  return existsSync(dir) ? readdirSync(dir) : []
}

/** After the run: is the grandchild whose pid the probe wrote still alive (polled: its job may take a moment to end it)? */
async function grandchildAlive(pidFile) {
  const pid = pidFile ? await waitForFile(pidFile, 100) : undefined
  if (pid === undefined) return null
  for (let t = 0; t < 3000 && alive(pid); t += 100) await sleep(100)
  const still = alive(pid)
  if (still) process.kill(pid) // never leave it behind, whatever the test says
  return still
}

async function run() {
  const { win32Backend } = await dist('platform/win32/index.js')
  const backend = win32Backend()
  const prepared = backend.prepare({ policy: req.policy, mode: 'auto', explicit: new Set() })
  const started = backend.start(prepared, { argv: req.argv, env: req.env, compat: 'best-effort', stdin: 'pipe', stdout: 'pipe', stderr: 'pipe', ...(req.input !== undefined ? { input: req.input } : {}) })
  let setup
  let setupError
  try {
    setup = await started.started
  } catch (err) {
    setupError = { name: err.name, step: err.step, errnoCode: err.errnoCode, message: err.message }
  }
  const journalsDuring = setup ? await journals() : []
  const gcPid = req.pidFile && setup && req.stop ? await waitForFile(req.pidFile, 15000) : undefined
  const grandchildAliveBefore = gcPid === undefined ? null : alive(gcPid)
  if (req.stop === 'stop') started.stop()
  if (req.stop === 'kill-launcher') process.kill(started.pid) // TerminateProcess: the launcher dies without cleaning up
  let end
  try {
    end = await started.finished
  } catch (err) {
    setupError ??= { name: err.name, step: err.step, errnoCode: err.errnoCode, message: err.message }
  }
  backend.release(prepared)
  return {
    setup: setup ?? null,
    setupError: setupError ?? null,
    exitCode: end?.exitCode ?? null,
    signal: end?.signal ?? null,
    stdout: end?.stdout.toString('utf8') ?? '',
    stderr: end?.stderr.toString('utf8') ?? '',
    notes: end?.enforcement.notes ?? [],
    journalsDuring,
    journalsAfter: await journals(),
    grandchildAlive: await grandchildAlive(req.pidFile),
    grandchildAliveBefore,
  }
}

/** The public API end to end: createSandbox() → run(), as a Windows caller would. */
async function sandbox() {
  const { createSandbox } = await dist('index.js')
  const sb = createSandbox({ cwd: req.cwd, write: req.write, compat: 'best-effort' })
  const r = await sb.run(req.argv)
  await sb.close?.()
  return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr, enforcement: r.enforcement }
}

/** The launcher fed a hand-made plan (`req.fields`, NUL-joined as sent): its status text and exit code. */
async function rawPlan() {
  const { spawn } = await import('node:child_process')
  const { loadNative } = await dist('native/load.js')
  const child = spawn(loadNative().launcherPath, [], { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] })
  let status = ''
  child.stdio[4].on('data', (d) => (status += d))
  child.stdio[3].on('error', () => {})
  child.stdio[3].write(Buffer.from(req.fields.join('\0'), 'utf8'))
  if (req.close) child.stdio[3].end()
  const code = await new Promise((resolve) => child.on('close', resolve))
  return { status, code }
}

/** The same probe run unconfined, straight from Node (inside libuv's job, which allows breakaway): the control of a probe. */
async function direct() {
  const { spawnSync } = await import('node:child_process')
  const r = spawnSync(req.argv[0], req.argv.slice(1), { encoding: 'utf8' })
  return { exitCode: r.status, stdout: r.stdout, stderr: r.stderr }
}

async function doctor() {
  const { win32Backend } = await dist('platform/win32/index.js')
  return win32Backend().doctor()
}

const ops = { load, run, sandbox, doctor, rawPlan, direct }
let result
try {
  result = await ops[req.op]()
} catch (err) {
  result = { driverError: String(err?.stack ?? err) }
}
writeFileSync(output, JSON.stringify(result))
