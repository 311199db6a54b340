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
 * (then `denied`). The requests run in order on one orchestrator. Prints
 * one JSON line: { asked, outcomes } — or { error } for a rejection (a
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

const { createOrchestrator } = await import(dist.href)
const job = await readStdin()
const asked = []
const answers = [...(job.answers ?? [])]
const outcomes = []
try {
  const orch = createOrchestrator({ ...job.options, onApproval: (r) => (asked.push(r), answers.shift() ?? 'denied') })
  for (const request of job.requests) outcomes.push(await orch.exec(request))
  process.stdout.write(JSON.stringify({ asked, outcomes }) + '\n')
} catch (e) {
  process.stdout.write(JSON.stringify({ asked, outcomes, error: serializeError(e) }) + '\n')
}
