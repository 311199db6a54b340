/**
 * apply_patch with the real sandbox, in both modes, as root and as the
 * unprivileged `cordon-probe`: the orchestrator runs as the identity
 * (orch-driver.mjs, an approver answering from a script) and takes the
 * patch as `['apply_patch', PATCH]` (routed by orchestrator.exec to the
 * apply_patch runtime), and each test checks the host's files.
 *
 * The applier runs inside the sandbox: a write the profile denies is
 * refused by the kernel (Landlock / a read-only bind), never made by the
 * unconfined Node process — the same write made by the same identity
 * without the sandbox succeeds (the baseline).
 */
import { execFileSync } from 'node:child_process'
import { chownSync, copyFileSync, existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { describeEscape } from '../../../helpers/escape.js'
import type { Identity } from '../../../helpers/identity.js'
import { makeTree, type Tree } from '../../../helpers/tree.js'
import { runDriver, runOrchestrator, type OrchReply } from '../orchestrator/orch-run.js'

const patch = (...lines: string[]) => `*** Begin Patch\n${lines.join('\n')}\n*** End Patch\n`

interface PatchOutput {
  ok: boolean
  status: string
  text: string
  report?: { ok: boolean; files: { path: string; status: string; error?: { code: string } }[] }
}

interface RaceReply extends OrchReply {
  swap?: { exitCode: number | null; stdout: string; stderr: string }
  execPath: string
}

const raceDriver = join(dirname(fileURLToPath(import.meta.url)), '../orchestrator/orch-driver.mjs')

/**
 * orch-driver.mjs (with a `swap`) as the identity, run by `node`: the job's `swap` (an
 * argv) runs confined in the workspace while the first approval is
 * pending — deterministic, as a sandboxed session could do it meanwhile.
 */
function runRace(identity: Identity, home: string, job: Record<string, unknown>, node = process.execPath): Promise<RaceReply> {
  return runDriver<RaceReply>(identity, home, raceDriver, job, { node })
}

function patchOutput(r: OrchReply, i = 0): PatchOutput {
  expect(r.error, JSON.stringify(r.error)).toBeUndefined()
  return (r.outcomes[i] as unknown as { output: PatchOutput }).output
}

describeEscape('apply_patch (issue 14)', (identity: Identity, mode) => {
  let t: Tree
  let n = 0
  beforeAll(() => {
    t = makeTree(identity, `patch-${mode}`)
  })
  afterAll(() => t?.cleanup())

  function ws() {
    const i = n++
    return { i, work: t.dir(`p${i}/work`), out: t.dir(`p${i}/out`) }
  }
  const sandbox = (work: string, extra: Record<string, unknown> = {}) => ({ cwd: work, mode, compat: 'best-effort', ...extra })
  const apply = (work: string, text: string, answers: string[], extra: Record<string, unknown> = {}) =>
    runOrchestrator(identity, t.home, { options: { sandbox: sandbox(work, extra), approvalMode: 'on-request' }, answers: answers as never, requests: [{ command: ['apply_patch', text] }] })
  /** The identity, without any sandbox, creates `path` (the baseline a denial is measured against). */
  const plainCreate = (path: string) => {
    const [file, ...args] = identity.wrap(['/bin/sh', '-c', 'printf x > "$1"', 'sh', path])
    execFileSync(file!, args)
  }

  it('a patch inside the workspace is asked once as a patch (with its diff) and applied', async () => {
    const w = ws()
    const a = t.file(`p${w.i}/work/a.txt`, 'one\ntwo\n')
    t.file(`p${w.i}/work/old.txt`, 'moving\n')
    const r = await apply(w.work, patch('*** Update File: a.txt', '@@', '-two', '+2', '*** Add File: sub/new.txt', '+new', '*** Update File: old.txt', '*** Move to: moved.txt'), ['approved'])
    const out = patchOutput(r)
    expect(out.text).toBe('Patch applied.\napplied update a.txt\napplied add sub/new.txt\napplied update old.txt -> moved.txt\n')
    expect(r.asked).toHaveLength(1)
    expect(r.asked[0]).toMatchObject({ promptClass: 'patch', patch: { files: [{ kind: 'update', diff: expect.stringContaining('-two\n+2\n') }, { kind: 'add' }, { kind: 'update', moveTo: join(w.work, 'moved.txt') }] } })
    expect(readFileSync(a, 'utf8')).toBe('one\n2\n')
    expect(readFileSync(join(w.work, 'sub/new.txt'), 'utf8')).toBe('new\n')
    expect(readFileSync(join(w.work, 'moved.txt'), 'utf8')).toBe('moving\n')
    expect(existsSync(join(w.work, 'old.txt'))).toBe(false)
  })

  it('a path outside the workspace asks for an additional write root: approved, it is written', async () => {
    const w = ws()
    const r = await apply(w.work, patch(`*** Add File: ${join(w.out, 'x.txt')}`, '+outside'), ['approved'])
    expect(patchOutput(r)).toMatchObject({ ok: true, status: 'completed' })
    expect(r.asked).toHaveLength(1)
    expect(r.asked[0]).toMatchObject({ promptClass: 'escalation', widening: { write: [w.out] } })
    expect(readFileSync(join(w.out, 'x.txt'), 'utf8')).toBe('outside\n')
  })

  it('the same, denied: nothing is written', async () => {
    const w = ws()
    const r = await apply(w.work, patch('*** Add File: inside.txt', '+in', `*** Add File: ${join(w.out, 'x.txt')}`, '+outside'), ['denied'])
    expect(patchOutput(r)).toMatchObject({ ok: false, status: 'denied' })
    expect(r.outcomes[0]!.attempts).toHaveLength(0)
    expect(existsSync(join(w.out, 'x.txt'))).toBe(false)
    expect(existsSync(join(w.work, 'inside.txt'))).toBe(false)
  })

  it('a file in a directory the profile denies reading is refused before anything is asked or run, whether it exists or not', async () => {
    const w = ws()
    const a = t.file(`p${w.i}/work/a.txt`, 'one\n')
    const secret = t.dir(`p${w.i}/work/secret`)
    t.file(`p${w.i}/work/secret/present.txt`, 'k\n')
    for (const name of ['present.txt', 'absent.txt']) {
      const r = await apply(w.work, patch('*** Update File: a.txt', '@@', '-one', '+1', `*** Add File: secret/${name}`, '+2'), ['approved'], { denyRead: [secret] })
      const out = patchOutput(r)
      // The same answer for a file that is there and one that is not: the patch tells nothing about the directory.
      expect(out).toMatchObject({ ok: false, status: 'invalid' })
      expect(out.text).toContain(`secret/${name}: the sandbox does not let commands read it (deny-read)`)
      expect(r.asked).toHaveLength(0)
      expect(r.outcomes[0]!.attempts).toHaveLength(0)
    }
    expect(readFileSync(a, 'utf8')).toBe('one\n')
    expect(existsSync(join(secret, 'absent.txt'))).toBe(false)
  })

  if (mode === 'landlock')
    it('the applier runs confined: a new file in a directory Landlock narrowed around a denied read is refused by the kernel; the report says what was applied', async () => {
      const w = ws()
      const a = t.file(`p${w.i}/work/a.txt`, 'one\n')
      const secret = t.dir(`p${w.i}/work/secret`)
      const r = await apply(w.work, patch('*** Update File: a.txt', '@@', '-one', '+1', '*** Add File: planted.txt', '+2', '*** Add File: last.txt', '+3'), ['approved', 'approved'], { denyRead: [secret] })
      const out = patchOutput(r)
      expect(out.report?.files.map((f) => [f.path, f.status])).toEqual([
        ['a.txt', 'applied'],
        ['planted.txt', 'failed'],
        ['last.txt', 'not-attempted'],
      ])
      expect(['EACCES', 'EPERM']).toContain(out.report?.files[1]?.error?.code)
      // The workspace refuses new entries, so the update was written in place.
      expect(readFileSync(a, 'utf8')).toBe('1\n')
      expect(existsSync(join(w.work, 'planted.txt'))).toBe(false)
      // A denied read is never widened: no second attempt wrote it.
      expect(r.outcomes[0]!.attempts).toHaveLength(1)
      // Baseline: the same identity creates that file when nothing confines it.
      plainCreate(join(w.work, 'planted.txt'))
      expect(readFileSync(join(w.work, 'planted.txt'), 'utf8')).toBe('x')
    })

  if (mode === 'namespaces')
    it('a patch into .git/hooks is refused by the sandbox (read-only bind) and the partial failure lists what was applied', async () => {
      const w = ws()
      const hooks = t.dir(`p${w.i}/work/.git/hooks`)
      const r = await apply(w.work, patch('*** Add File: ok.txt', '+1', '*** Add File: .git/hooks/pre-commit', '+#!/bin/sh', '*** Add File: later.txt', '+2'), ['approved', 'approved'])
      const out = patchOutput(r)
      expect(out.report?.files.map((f) => [f.path, f.status])).toEqual([
        ['ok.txt', 'applied'],
        ['.git/hooks/pre-commit', 'failed'],
        ['later.txt', 'not-attempted'],
      ])
      expect(['EROFS', 'EACCES', 'EPERM']).toContain(out.report?.files[1]?.error?.code)
      expect(out.text).toContain('Patch NOT fully applied')
      expect(r.outcomes[0]!.escalation?.refused.join('\n')).toContain('protected paths stay read-only')
      expect(existsSync(join(hooks, 'pre-commit'))).toBe(false)
      expect(existsSync(join(w.work, 'ok.txt'))).toBe(true)
      plainCreate(join(hooks, 'pre-commit'))
      expect(existsSync(join(hooks, 'pre-commit'))).toBe(true)
    })

  if (mode === 'landlock')
    it('Landlock mode cannot keep .git/hooks read-only below a write root: the attempt report says so, and a patch into it is refused up front', async () => {
      const w = ws()
      t.dir(`p${w.i}/work/.git/hooks`)
      const r = await apply(w.work, patch('*** Add File: ok.txt', '+1'), ['approved'])
      expect(patchOutput(r).ok).toBe(true)
      const e = r.outcomes[0]!.attempts[0]!.sandbox.enforcement!
      expect(e.missing.map((m) => m.protection)).toContain('protected-paths')
      expect(e.filesystem.protected).toContain(join(w.work, '.git/hooks'))
      // So a patch into it is refused before anything is asked or written (the sandbox would let the applier write the hook).
      const hook = await apply(w.work, patch('*** Add File: ok2.txt', '+1', '*** Add File: .git/hooks/pre-commit', '+#!/bin/sh'), ['approved'])
      expect(patchOutput(hook)).toMatchObject({ ok: false, status: 'refused' })
      expect(patchOutput(hook).text).toContain('which this sandbox (landlock mode) cannot keep read-only')
      expect(hook.asked).toHaveLength(0)
      expect(existsSync(join(w.work, '.git/hooks/pre-commit'))).toBe(false)
      expect(existsSync(join(w.work, 'ok2.txt'))).toBe(false)
    })

  it('a patch that does not fit the files writes nothing and asks nothing', async () => {
    const w = ws()
    t.file(`p${w.i}/work/a.txt`, 'one\n')
    const r = await apply(w.work, patch('*** Add File: b.txt', '+b', '*** Update File: a.txt', '@@', '-nope', '+x'), ['approved'])
    expect(patchOutput(r)).toMatchObject({ ok: false, status: 'invalid' })
    expect(r.asked).toHaveLength(0)
    expect(existsSync(join(w.work, 'b.txt'))).toBe(false)
  })

  describe('after approval, the helper writes only the paths the approver saw', () => {
    const race = (work: string, text: string, swap: string[], node?: string) =>
      runRace(identity, t.home, { options: { sandbox: sandbox(work), approvalMode: 'on-request' }, answers: ['approved', 'approved'], swap, requests: [{ command: ['apply_patch', text] }] }, node)

    it('a directory turned into a symlink to the widened root while the approval is pending: the write through it fails, nothing lands there (red team F2)', async () => {
      const w = ws()
      const r = await race(w.work, patch(`*** Add File: ${join(w.out, 'notes.txt')}`, '+notes', '*** Add File: sub/run.sh', '+#!/bin/sh'), ['ln', '-s', w.out, 'sub'])
      expect(r.swap).toMatchObject({ exitCode: 0 })
      // The approver saw ws/sub/run.sh, with ws/sub not there yet.
      expect(r.asked[0]).toMatchObject({ promptClass: 'escalation', widening: { write: [w.out] } })
      const out = patchOutput(r)
      expect(out.report?.files.map((f) => [f.path, f.status, f.error?.code])).toEqual([
        [join(w.out, 'notes.txt'), 'applied', undefined],
        ['sub/run.sh', 'failed', 'EREDIRECT'],
      ])
      expect(out.text).toContain(`FAILED add sub/run.sh: EREDIRECT (${join(w.work, 'sub')} changed after approval: it now leads to ${w.out}; nothing written there)`)
      expect(readdirSync(w.out)).toEqual(['notes.txt'])
    })

    it('the same for an update: the copy in the widened root is not overwritten', async () => {
      const w = ws()
      t.file(`p${w.i}/work/sub/config`, 'safe=1\n')
      const real = t.file(`p${w.i}/out/config`, 'safe=1\n')
      const r = await race(w.work, patch(`*** Add File: ${join(w.out, 'notes.txt')}`, '+notes', '*** Update File: sub/config', '@@', '-safe=1', '+safe=0'), ['sh', '-c', `mv sub sub.old && ln -s ${w.out} sub`])
      expect(r.swap).toMatchObject({ exitCode: 0 })
      const out = patchOutput(r)
      expect(out.report?.files.map((f) => [f.path, f.status, f.error?.code])).toEqual([
        [join(w.out, 'notes.txt'), 'applied', undefined],
        ['sub/config', 'failed', 'EREDIRECT'],
      ])
      expect(readFileSync(real, 'utf8')).toBe('safe=1\n')
      expect(readFileSync(join(w.work, 'sub.old/config'), 'utf8')).toBe('safe=1\n')
    })

    it('a file swapped for a FIFO while the approval is pending fails its step at once; the call returns (red team F4)', async () => {
      const w = ws()
      t.file(`p${w.i}/work/f`, 'one\n')
      const r = await race(w.work, patch('*** Add File: first.txt', '+1', '*** Update File: f', '@@', '-one', '+two'), ['sh', '-c', 'rm f && mkfifo f'])
      expect(r.swap).toMatchObject({ exitCode: 0 })
      const out = patchOutput(r)
      expect(out.status).toBe('completed')
      expect(out.report?.files.map((f) => [f.path, f.status, f.error?.code])).toEqual([
        ['first.txt', 'applied', undefined],
        ['f', 'failed', 'ECHANGED'],
      ])
      expect(out.text).toContain(`${join(w.work, 'f')} is no longer a regular file; nothing written to it`)
    })

    it('a node binary inside a write root is refused: a sandboxed command could have replaced it, and the patch would run it with the widened root (red team F9)', async () => {
      const w = ws()
      const node = join(t.dir(`p${w.i}/work/bin`), 'node')
      copyFileSync(realpathSync(process.execPath), node)
      if (process.getuid?.() === 0) chownSync(node, identity.uid, identity.gid)
      const r = await race(w.work, patch(`*** Add File: ${join(w.out, 'notes.txt')}`, '+notes'), ['true'], node)
      expect(r.execPath).toBe(node)
      const out = patchOutput(r)
      expect(out).toMatchObject({ ok: false, status: 'error' })
      expect(out.text).toContain(`the node binary that runs the apply_patch helper (${node}) lies inside the write root ${w.work}`)
      expect(r.outcomes[0]!.attempts).toMatchObject([{ error: { code: 'E_LOAD' } }])
      expect(readdirSync(w.out)).toEqual([])
    })
  })
})
