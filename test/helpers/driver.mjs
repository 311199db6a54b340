#!/usr/bin/env node
/**
 * The escape-test driver: the *caller* of cordon, run as the identity under
 * test (root, or an unprivileged user through setpriv), like a real user's
 * program would be.
 *
 * Reads one JSON request on stdin:
 *   { options, command, runOptions?, unconfined?, passFd? }
 * and prints one JSON line: { result } (a SandboxResult), or { error } (a
 * typed cordon error, serialised), or — with `unconfined: true` — the result
 * of a plain spawn of the same command by the same identity, so a test can
 * show the probe works when nothing confines it.
 * `{ batch: [request, …] }` runs several requests in order (confined, then
 * unconfined) and prints `{ batch: [reply, …] }`.
 * `{ doctor: true }` prints `{ doctor: report }`: what cordon's doctor() finds
 * for this identity (the globalSetup asks it which tests can run here).
 *
 * `node driver.mjs --serve` keeps going: one JSON line in per job,
 * `{ id, job }` (job: a request or a batch), one line out per reply,
 * `{ id, reply }`, jobs running concurrently — one Node start for a whole
 * group of tests instead of one per test.
 */
import { createInterface } from 'node:readline'
import { spawn } from 'node:child_process'

const dist = new URL('../../dist/index.js', import.meta.url)

async function readStdin() {
  let text = ''
  for await (const chunk of process.stdin) text += chunk
  return JSON.parse(text)
}

function serializeError(e) {
  const fields = ['name', 'code', 'step', 'syscall', 'errnoCode', 'errno', 'where', 'feature', 'message']
  const out = {}
  for (const k of fields) if (e && e[k] !== undefined) out[k] = e[k]
  return out
}

/* `passFd`: hand this inherited fd on at the same number (Node marks the fds
 * it inherits close-on-exec, so a plain spawn would not pass it by itself). */
function plainSpawn(command, cwd, passFd) {
  const stdio = ['ignore', 'pipe', 'pipe']
  if (passFd !== undefined) {
    while (stdio.length < passFd) stdio.push('ignore')
    stdio.push(passFd)
  }
  return new Promise((resolve) => {
    const child = spawn(command[0], command.slice(1), { cwd, env: process.env, stdio })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', (e) => resolve({ exitCode: null, signal: null, stdout, stderr: stderr + String(e) }))
    child.on('close', (exitCode, signal) => resolve({ exitCode, signal, stdout, stderr }))
  })
}

/**
 * Network allowlist tests name their loopback servers (`networkHosts`:
 * { 'registry.test': '127.0.0.2' }) and the approver's answers per host
 * (`networkAnswers`), as JSON; here they become the sandbox's `networkLookup`
 * and `onNetworkRequest` functions.
 */
function sandboxOptions(options) {
  const { networkHosts, networkAnswers, ...rest } = options ?? {}
  if (networkHosts) {
    rest.networkLookup = (host, _o, cb) =>
      Object.hasOwn(networkHosts, host) ? cb(null, [{ address: networkHosts[host], family: 4 }]) : cb(Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), [])
  }
  if (networkAnswers) rest.onNetworkRequest = (q) => networkAnswers[q.host] ?? 'denied'
  return rest
}

async function confined(request) {
  const { createSandbox } = await import(dist.href)
  let sandbox
  try {
    sandbox = createSandbox(sandboxOptions(request.options))
    return { result: await sandbox.run(request.command, request.runOptions) }
  } catch (e) {
    return { error: serializeError(e) }
  } finally {
    sandbox?.close()
  }
}

async function serve(request) {
  return request.unconfined ? { result: await plainSpawn(request.command, request.options?.cwd, request.passFd) } : await confined(request)
}

async function doctor() {
  const { doctor } = await import(dist.href)
  return { doctor: doctor() }
}

async function handle(job) {
  if (job.doctor) return doctor()
  if (!Array.isArray(job.batch)) return serve(job)
  const batch = []
  for (const request of job.batch) batch.push(await serve(request))
  return { batch }
}

if (process.argv.includes('--serve')) {
  for await (const line of createInterface({ input: process.stdin })) {
    if (!line.trim()) continue
    const { id, job } = JSON.parse(line)
    handle(job).then((reply) => process.stdout.write(JSON.stringify({ id, reply }) + '\n'))
  }
} else {
  process.stdout.write(JSON.stringify(await handle(await readStdin())) + '\n')
}
