/**
 * A scripted orchestrator for the decision-flow tests: fake sandboxes
 * (fake-sandbox.ts), a recording approver whose answer a test sets, a
 * workspace and a directory outside it.
 */
import { realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, vi } from 'vitest'
import { removeTempDirs, tempDir } from '../../helpers/temp.js'
import { createOrchestrator, type ApprovalDecision, type ApprovalRequest, type OrchestratorOptions } from '../../../src/orchestrator/index.js'
import { fakeSandboxes, type Script } from './fake-sandbox.js'

// Every directory made here is removed after the test file that made it.
afterAll(removeTempDirs)

export const dir = (label: string) => realpathSync(tempDir(`orch-${label}-`))

/** An empty rules file in its own directory (outside every write root). */
export function rulesFile(text = ''): string {
  const file = join(dir('rules'), 'default.rules')
  writeFileSync(file, text)
  return file
}

/** Denies `touch` outside the write roots, as Landlock would, by looking at the argv. */
export function touchScript(ws: string): Script {
  return ({ argv, options }) => {
    const target = argv[argv.length - 1] as string
    const roots = [ws, ...(options.write ?? [])]
    if (argv[0] === 'touch' && !roots.some((r) => target.startsWith(r))) return { exitCode: 1, stderr: `touch: cannot touch '${target}': Permission denied\n` }
    return {}
  }
}

export function setup(opts: Partial<OrchestratorOptions> = {}, script?: Script, ws = dir('ws')) {
  const fake = fakeSandboxes(script ?? touchScript(ws), ws)
  const asked: ApprovalRequest[] = []
  const answer = vi.fn<(r: ApprovalRequest) => ApprovalDecision>(() => 'approved')
  const orch = createOrchestrator({
    sandbox: { profile: 'workspace-write', cwd: ws },
    onApproval: (r) => (asked.push(r), answer(r)),
    createSandbox: fake.create,
    ...opts,
  })
  return { orch, fake, asked, answer, ws }
}
