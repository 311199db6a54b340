#!/usr/bin/env node
/**
 * The orchestrator's escape-test driver: the *caller* of cordon's
 * orchestrator, run as the identity under test (root, or `cordon-probe`
 * through setpriv), like an agent runtime would be.
 *
 * Reads one JSON job on stdin:
 *   { options, answers?, requests: [ExecRequest, …] }
 * `options` are createOrchestrator() options as JSON (hooks as commands);
 * the approver records each request and answers with the next of `answers`
 * (then `denied`). The requests run in order on one orchestrator. With
 * `swap` (an argv; apply-patch.test.ts), that argv runs confined in the
 * job's sandbox (its cwd, the workspace) when the first approval is asked,
 * before it is answered — a sandboxed command changing the files while the
 * approver reads the request, without any timing. Prints one JSON line:
 * { asked, outcomes, swap, execPath } — with { error } for a rejection (a
 * typed cordon error, serialised).
 */
const dist = new URL('../../../../dist/index.js', import.meta.url)

async function readStdin() {
  let text = ''
  for await (const chunk of process.stdin) text += chunk
  return JSON.parse(text)
}

function serializeError(e) {
  const out = {}
  for (const k of ['name', 'code', 'where', 'message']) if (e && e[k] !== undefined) out[k] = e[k]
  return out
}

const { createOrchestrator, createSandbox } = await import(dist.href)
const job = await readStdin()
const asked = []
const answers = [...(job.answers ?? [])]
const outcomes = []
let swap

async function swapNow() {
  const sb = createSandbox(job.options.sandbox)
  try {
    const r = await sb.run(job.swap)
    swap = { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr }
  } finally {
    sb.close()
  }
}

async function onApproval(r) {
  asked.push(r)
  if (job.swap && !swap) await swapNow()
  return answers.shift() ?? 'denied'
}

try {
  const orch = createOrchestrator({ ...job.options, onApproval })
  for (const request of job.requests) outcomes.push(await orch.exec(request))
  process.stdout.write(JSON.stringify({ asked, outcomes, swap, execPath: process.execPath }) + '\n')
} catch (e) {
  process.stdout.write(JSON.stringify({ asked, outcomes, swap, execPath: process.execPath, error: serializeError(e) }) + '\n')
}
