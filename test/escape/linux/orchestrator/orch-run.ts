/**
 * Run the orchestrator as an identity (orch-driver.mjs): the escape tests
 * of issue 13 run as root and as the unprivileged `cordon-probe`, in both
 * sandbox modes, like the sandbox's own (test/helpers/escape.ts).
 */
import { spawn } from 'node:child_process'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ApprovalDecision, ApprovalRequest, ExecOutcome } from '../../../../src/orchestrator/index.js'
import type { Identity } from '../../../helpers/identity.js'

const driver = join(dirname(fileURLToPath(import.meta.url)), 'orch-driver.mjs')

export interface OrchJob {
  options: Record<string, unknown>
  answers?: ApprovalDecision[]
  requests: Record<string, unknown>[]
}

export interface OrchReply {
  asked: ApprovalRequest[]
  outcomes: ExecOutcome[]
  error?: { name: string; code?: string; where?: string; message: string }
}

export function runOrchestrator(identity: Identity, home: string, job: OrchJob, timeoutMs = 60_000): Promise<OrchReply> {
  return runDriver<OrchReply>(identity, home, driver, job, { timeoutMs })
}

/**
 * Run a JSON driver (`script`: one job on stdin, one JSON line out) as the
 * identity, with `node` (default: this one), and parse its last line.
 */
export function runDriver<Reply>(identity: Identity, home: string, script: string, job: unknown, { timeoutMs = 60_000, node = process.execPath } = {}): Promise<Reply> {
  const [file, ...args] = identity.wrap([node, script])
  // The identity's TMPDIR and XDG_RUNTIME_DIR: its temp files stay in the run's own root.
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C', ...identity.env }
  const child = spawn(file!, args, { env, stdio: ['pipe', 'pipe', 'pipe'], timeout: timeoutMs })
  let out = ''
  let err = ''
  child.stdout.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr.on('data', (d: Buffer) => (err += d.toString()))
  child.stdin.end(JSON.stringify(job))
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code, signal) => {
      const line = out.trim().split('\n').pop() ?? ''
      try {
        resolve(JSON.parse(line) as Reply)
      } catch {
        reject(new Error(`${basename(script)} (${identity.name}) exited ${code ?? signal} without a reply; stdout: ${out}; stderr: ${err}`))
      }
    })
  })
}
