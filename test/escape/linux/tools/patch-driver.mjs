#!/usr/bin/env node
/**
 * The apply_patch race driver (apply-patch.test.ts): the job of
 * orch-driver.mjs ({ options, answers?, requests }), plus `swap`: an argv
 * run confined in the job's sandbox (its cwd, the workspace) when the first
 * approval is asked, before it is answered — a sandboxed command changing
 * the files while the approver reads the request, without any timing.
 * Prints one JSON line: { asked, outcomes, swap, execPath } — or with
 * { error } for a rejection.
 */
const dist = new URL('../../../../dist/index.js', import.meta.url)

async function readStdin() {
  let text = ''
  for await (const chunk of process.stdin) text += chunk
  return JSON.parse(text)
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

try {
  const onApproval = async (r) => {
    asked.push(r)
    if (job.swap && !swap) await swapNow()
    return answers.shift() ?? 'denied'
  }
  const orch = createOrchestrator({ ...job.options, onApproval })
  for (const request of job.requests) outcomes.push(await orch.exec(request))
  process.stdout.write(JSON.stringify({ asked, outcomes, swap, execPath: process.execPath }) + '\n')
} catch (e) {
  const error = { name: e?.name, code: e?.code, message: String(e?.message ?? e) }
  process.stdout.write(JSON.stringify({ asked, outcomes, swap, execPath: process.execPath, error }) + '\n')
}
