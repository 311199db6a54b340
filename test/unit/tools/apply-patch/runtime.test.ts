/**
 * applyPatch() through the orchestrator with scripted sandboxes: the
 * "sandbox" here runs the applier's real steps in this process, refusing
 * (EACCES) a step outside the attempt's write roots or under .git/hooks as
 * the real one would (the escape tests use the real sandbox). What is
 * asked, with which keys and prompt class, what each attempt may write,
 * and what the report says.
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { applySteps, type ApplierInput, type ApplierLine } from '../../../../src/tools/apply-patch/applier.js'
import { applyPatch } from '../../../../src/tools/apply-patch/apply-patch.js'
import { applyPatchTool, patchToolOutput } from '../../../../src/tools/apply-patch/tool.js'
import { APPLIER_TIMEOUT_MS } from '../../../../src/tools/apply-patch/run-applier.js'
import { applyPatchRuntime } from '../../../../src/tools/apply-patch/runtime.js'
import { parsePatch } from '../../../../src/tools/apply-patch/parser.js'
import { stepsOf } from '../../../../src/tools/apply-patch/steps.js'
import { verifyPatch } from '../../../../src/tools/apply-patch/verify.js'
import { SetupError, shellTool, ToolRouter, ToolSetupError, type ResponseItem } from '../../../../src/index.js'
import { fnCall, setupDispatch } from '../harness.js'
import type { Script } from '../../orchestrator/fake-sandbox.js'
import { dir, rulesFile, setup } from '../../orchestrator/harness.js'
import { isUnder } from '../../../../src/orchestrator/denial/path-rules.js'

function sandboxedSteps(ws: string): Script {
  return ({ argv, options, runOptions }) => {
    if (!String(argv.at(-1)).endsWith('applier.js')) return { exitCode: 127, stderr: `unexpected ${argv.join(' ')}` }
    const input = JSON.parse(String(runOptions?.input)) as ApplierInput
    const roots = [ws, ...(options.write ?? [])]
    const lines: ApplierLine[] = []
    for (const [i, step] of input.steps.entries()) {
      if (!roots.some((r) => isUnder(step.path, r)) || isUnder(step.path, join(ws, '.git/hooks'))) {
        lines.push({ step: i, status: 'failed', error: { code: 'EACCES', syscall: 'open', message: `EACCES: permission denied, open '${step.path}'` } })
        break
      }
      applySteps([step], (l) => lines.push({ ...l, step: i }))
      if (lines.at(-1)?.status === 'failed') break
    }
    return { exitCode: lines.some((l) => l.status === 'failed') ? 1 : 0, stdout: lines.map((l) => `${JSON.stringify(l)}\n`).join('') }
  }
}

function patchSetup(opts: Parameters<typeof setup>[0] = {}) {
  const ws = dir('ws')
  return setup(opts, sandboxedSteps(ws), ws)
}

const patch = (...lines: string[]) => `*** Begin Patch\n${lines.join('\n')}\n*** End Patch\n`

describe('applyPatch through the orchestrator', () => {
  it('asks once as a patch, showing each file diff, then applies inside the sandbox attempt', async () => {
    const { orch, asked, fake, ws } = patchSetup()
    writeFileSync(join(ws, 'a.txt'), 'one\ntwo\n')
    const r = await applyPatch(orch, patch('*** Update File: a.txt', '@@', ' one', '-two', '+2', '*** Add File: b.txt', '+bee'))
    expect(r).toMatchObject({ ok: true, status: 'completed' })
    expect(r.text).toBe('Patch applied.\napplied update a.txt\napplied add b.txt\n')
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('one\n2\n')
    expect(readFileSync(join(ws, 'b.txt'), 'utf8')).toBe('bee\n')
    expect(asked).toHaveLength(1)
    expect(asked[0]).toMatchObject({
      kind: 'exec',
      promptClass: 'patch',
      command: ['apply_patch', join(ws, 'a.txt'), join(ws, 'b.txt')],
      patch: {
        environment: 'local',
        paths: [join(ws, 'a.txt'), join(ws, 'b.txt')],
        files: [
          { kind: 'update', path: join(ws, 'a.txt'), diff: '--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n' },
          { kind: 'add', path: join(ws, 'b.txt'), diff: '--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1,1 @@\n+bee\n' },
        ],
      },
    })
    // One attempt, in the profile's sandbox (nothing added), running node with the applier.
    // node is given the applier's code, read when cordon loaded: it never reads applier.js (which a sandboxed command could have rewritten) at patch time.
    expect(fake.runs.map((x) => x.argv)).toEqual([[process.execPath, '--input-type=module', '-e', expect.stringMatching(/export function applySteps[\s\S]*\nmain\(\);\n$/), expect.stringMatching(/dist\/tools\/apply-patch\/applier\.js$/)]])
    expect(fake.made.at(-1)?.write ?? []).toEqual([])
  })

  it('caches a session approval per (environment, path): a move keys both ends, and every key must be cached to skip asking', async () => {
    const { orch, asked, answer, ws } = patchSetup()
    answer.mockReturnValue('approved_for_session')
    writeFileSync(join(ws, 'a'), 'x\n')
    expect((await applyPatch(orch, patch('*** Update File: a', '*** Move to: b'))).ok).toBe(true)
    expect(asked).toHaveLength(1)
    // The write of b was approved: an edit of b skips asking.
    const again = await applyPatch(orch, patch('*** Update File: b', '@@', '+y'))
    expect(again.outcome?.approval?.source).toBe('cache')
    expect(asked).toHaveLength(1)
    // The removal of a was approved, not writing a: an add of a is asked.
    expect((await applyPatch(orch, patch('*** Add File: a', '+new'))).outcome?.approval?.source).toBe('user')
    // A new path among cached ones is asked; another environment is asked.
    expect((await applyPatch(orch, patch('*** Update File: b', '@@', '+z', '*** Add File: c', '+c'))).outcome?.approval?.source).toBe('user')
    expect((await applyPatch(orch, patch('*** Update File: c', '@@', '+d'), { environment: 'remote' })).outcome?.approval?.source).toBe('user')
    expect(asked).toHaveLength(4)
  })

  it('a session approval of editing a file does not approve deleting it or moving it away', async () => {
    const { orch, asked, answer, ws } = patchSetup()
    answer.mockReturnValue('approved_for_session')
    writeFileSync(join(ws, 'keep.txt'), 'x\n')
    expect((await applyPatch(orch, patch('*** Update File: keep.txt', '@@', '-x', '+y'))).ok).toBe(true)
    expect((await applyPatch(orch, patch('*** Update File: keep.txt', '@@', '-y', '+z'))).outcome?.approval?.source).toBe('cache')
    expect(asked).toHaveLength(1)
    // Before: both skipped the ask (the key was only the path), and the file was gone unasked.
    answer.mockReturnValue('denied')
    const del = await applyPatch(orch, patch('*** Delete File: keep.txt'))
    expect(del).toMatchObject({ ok: false, status: 'denied' })
    expect(asked.at(-1)?.patch?.files).toMatchObject([{ kind: 'delete', path: join(ws, 'keep.txt') }])
    writeFileSync(join(ws, 'elsewhere.txt'), 'e\n')
    answer.mockReturnValue('approved_for_session')
    expect((await applyPatch(orch, patch('*** Update File: elsewhere.txt', '@@', '-e', '+f'))).ok).toBe(true)
    answer.mockReturnValue('denied')
    // Both paths were approved for writing; moving keep.txt away removes it: asked.
    const moved = await applyPatch(orch, patch('*** Delete File: elsewhere.txt', '*** Update File: keep.txt', '*** Move to: elsewhere2.txt'))
    expect(moved.status).toBe('denied')
    expect(asked).toHaveLength(4)
    expect(readFileSync(join(ws, 'keep.txt'), 'utf8')).toBe('z\n')
    expect(existsSync(join(ws, 'elsewhere.txt'))).toBe(true)
  })

  it('asks a path outside the write roots as an additional write root: approved, attempt 1 writes there', async () => {
    const { orch, asked, fake } = patchSetup()
    const out = dir('out')
    const r = await applyPatch(orch, patch(`*** Add File: ${join(out, 'new/f.txt')}`, '+hi'))
    expect(r).toMatchObject({ ok: true, status: 'completed' })
    expect(readFileSync(join(out, 'new/f.txt'), 'utf8')).toBe('hi\n')
    expect(asked).toHaveLength(1)
    expect(asked[0]).toMatchObject({ promptClass: 'escalation', widening: { write: [out] }, patch: { paths: [join(out, 'new/f.txt')] } })
    expect(asked[0]!.scope?.join('\n')).toContain(out)
    expect(fake.made.at(-1)?.write).toEqual([out])
    expect(r.outcome?.attempts).toHaveLength(1)
  })

  it('a symlink in the workspace pointing outside: the request, the keys and the widening name the real target, never the link', async () => {
    const { orch, asked, answer, fake, ws } = patchSetup()
    const out = dir('out')
    writeFileSync(join(out, 'f'), 'a\n')
    symlinkSync(out, join(ws, 'link'))
    symlinkSync(join(out, 'f'), join(ws, 'file-link'))
    answer.mockReturnValue('approved_for_session')
    const r = await applyPatch(orch, patch('*** Update File: link/f', '@@', '-a', '+b'))
    expect(r.ok).toBe(true)
    expect(asked[0]).toMatchObject({ promptClass: 'escalation', command: ['apply_patch', join(out, 'f')], widening: { write: [out] }, patch: { paths: [join(out, 'f')], files: [{ path: join(out, 'f') }] } })
    expect(fake.made.at(-1)?.write).toEqual([out])
    // The same file through another link is the same key: no new question, no wider root than the one shown.
    const again = await applyPatch(orch, patch('*** Update File: file-link', '@@', '-b', '+c'))
    expect(again.outcome?.approval?.source).toBe('cache')
    expect(asked).toHaveLength(1)
    expect(readFileSync(join(out, 'f'), 'utf8')).toBe('c\n')
    // Touching it twice through two spellings in one patch is refused.
    const twice = await applyPatch(orch, patch('*** Update File: link/f', '@@', '-c', '+d', '*** Update File: ./file-link', '@@', '-c', '+e'))
    expect(twice).toMatchObject({ status: 'invalid', error: { kind: 'duplicate' } })
  })

  it('a rule allowing apply_patch under allowMeansNoSandbox still runs the applier in the profile sandbox, where a protected path stays read-only', async () => {
    const ws = dir('ws')
    const bin = dir('bin')
    // The rule's program must resolve on PATH to be trusted: an apply_patch program there (as some agent CLIs install).
    writeFileSync(join(bin, 'apply_patch'), '#!/bin/sh\n', { mode: 0o755 })
    mkdirSync(join(ws, 'conf'))
    const { orch, asked, fake } = setup(
      {
        sandbox: { profile: 'workspace-write', cwd: ws, mode: 'namespaces', env: { PATH: bin }, protected: [join(ws, 'conf')] },
        rules: [rulesFile('prefix_rule(pattern=["apply_patch"], decision="allow")\n')],
        allowMeansNoSandbox: true,
      },
      sandboxedSteps(ws),
      ws,
    )
    const r = await applyPatch(orch, patch('*** Add File: conf/x', '+planted'))
    expect(r.outcome?.policy).toMatchObject({ decision: 'allow', source: 'rule' })
    expect(asked).toHaveLength(0)
    // Before: attempt 1 ran with no sandbox (write: /), so the protected path was written.
    expect(fake.made.at(-1)?.write ?? []).toEqual([])
    expect(r.outcome?.attempts[0]?.sandbox.widening).toBeUndefined()
  })

  it('writes nothing when the additional write is denied', async () => {
    const { orch, answer, fake } = patchSetup()
    answer.mockReturnValue('denied')
    const out = dir('out')
    const r = await applyPatch(orch, patch(`*** Add File: ${join(out, 'f')}`, '+hi'))
    expect(r).toMatchObject({ ok: false, status: 'denied' })
    expect(r.text).toMatch(/^apply_patch: nothing was written \(denied/)
    expect(existsSync(join(out, 'f'))).toBe(false)
    expect(fake.runs).toHaveLength(0)
  })

  it('refuses a patch needing a root that is never proposed, before asking or running anything', async () => {
    const { orch, asked, fake } = patchSetup()
    const r = await applyPatch(orch, patch('*** Add File: /etc/cordon-apply-patch-test', '+x'))
    expect(r.status).toBe('refused')
    expect(r.text).toContain('lies in the system directory /etc')
    expect(asked).toHaveLength(0)
    expect(fake.runs).toHaveLength(0)
  })

  it('never proposes a write root inside a denied read: a new file there is refused as unreadable, before asking', async () => {
    const out = dir('out')
    const secret = join(out, 'secret')
    mkdirSync(secret)
    const ws = dir('ws')
    const { orch, asked, fake } = setup({ sandbox: { profile: 'workspace-write', cwd: ws, denyRead: [secret] } }, sandboxedSteps(ws), ws)
    const r = await applyPatch(orch, patch(`*** Add File: ${join(secret, 'x')}`, '+x'))
    expect(r.status).toBe('invalid')
    expect(r.text).toContain('the sandbox does not let commands read it (deny-read)')
    expect(asked).toHaveLength(0)
    expect(fake.runs).toHaveLength(0)
  })

  it('a patch that does not parse or fit is a result for the model: nothing asked, nothing run', async () => {
    const { orch, asked, fake, ws } = patchSetup()
    writeFileSync(join(ws, 'a'), 'x\n')
    const bad = await applyPatch(orch, '*** Begin Patch\n*** Frobnicate: a\n*** End Patch\n')
    expect(bad).toMatchObject({ ok: false, status: 'invalid', error: { name: 'PatchParseError', line: 2 } })
    const misfit = await applyPatch(orch, patch('*** Update File: a', '@@', '-nope', '+y'))
    expect(misfit).toMatchObject({ ok: false, status: 'invalid', error: { name: 'PatchVerifyError', kind: 'context' } })
    expect(misfit.text).toMatch(/^apply_patch: nothing was written: patch line 3: a: /)
    expect(asked).toHaveLength(0)
    expect(fake.runs).toHaveLength(0)
  })

  it('a protected path the sandbox cannot keep read-only (Landlock mode) is refused before anything is asked or written', async () => {
    const { orch, asked, fake, ws } = patchSetup()
    mkdirSync(join(ws, '.git/hooks'), { recursive: true })
    // Without this refusal the hook was approved as an ordinary patch and written: Landlock cannot keep a path below a write root read-only.
    const r = await applyPatch(orch, patch('*** Add File: ok.txt', '+1', '*** Add File: .git/hooks/pre-commit', '+evil'))
    expect(r.status).toBe('refused')
    expect(r.text).toContain(`${join(ws, '.git/hooks/pre-commit')} lies in the protected path ${join(ws, '.git/hooks')}, which this sandbox (landlock mode) cannot keep read-only`)
    expect(asked).toHaveLength(0)
    expect(fake.runs).toHaveLength(0)
    expect(existsSync(join(ws, 'ok.txt'))).toBe(false)
    expect(existsSync(join(ws, '.git/hooks/pre-commit'))).toBe(false)
  })

  it('a step the sandbox refuses stops the patch; the report lists what was applied; a protected path is not widened', async () => {
    const ws = dir('ws')
    const { orch } = setup({ sandbox: { profile: 'workspace-write', cwd: ws, mode: 'namespaces' } }, sandboxedSteps(ws), ws)
    mkdirSync(join(ws, '.git/hooks'), { recursive: true })
    const r = await applyPatch(orch, patch('*** Add File: ok.txt', '+1', '*** Add File: .git/hooks/pre-commit', '+evil', '*** Add File: later.txt', '+2'))
    expect(r).toMatchObject({ ok: false, status: 'completed' })
    expect(r.report?.files.map((f) => [f.path, f.status])).toEqual([
      ['ok.txt', 'applied'],
      ['.git/hooks/pre-commit', 'failed'],
      ['later.txt', 'not-attempted'],
    ])
    expect(r.outcome?.denials).toMatchObject([{ operation: 'write', rule: 'protected', path: join(ws, '.git/hooks/pre-commit') }])
    expect(r.outcome?.escalation).toMatchObject({ attempted: false })
    expect(r.outcome?.escalation?.refused.join('\n')).toContain('protected paths stay read-only')
    expect(existsSync(join(ws, 'ok.txt'))).toBe(true)
    expect(existsSync(join(ws, '.git/hooks/pre-commit'))).toBe(false)
    expect(existsSync(join(ws, 'later.txt'))).toBe(false)
  })

  it('a wider retry after a denial runs only the steps attempt 1 did not apply, and the report covers both', async () => {
    const { orch, asked, fake, ws } = patchSetup()
    const out = dir('out')
    writeFileSync(join(ws, 'a'), '1\n')
    // Straight to the runtime, without the additional write root applyPatch() would ask for: attempt 1 is denied outside the workspace.
    const plan = await verifyPatch(parsePatch(patch('*** Update File: a', '@@', '-1', '+one', `*** Add File: ${join(out, 'o')}`, '+o', '*** Add File: z', '+z')), { cwd: ws })
    const request = { plan, steps: stepsOf(plan), environment: 'local', additionalWrite: [], progress: { lines: [] } }
    const o = await orch.run(applyPatchRuntime, request)
    expect(o.attempts).toHaveLength(2)
    expect(o.denials).toEqual([])
    expect(o.attempts[0]!.denials).toMatchObject([{ operation: 'write', rule: 'outside-write-roots', path: join(out, 'o') }])
    expect(asked.map((a) => a.kind)).toEqual(['exec', 'escalation'])
    expect(fake.made.at(-1)?.write).toEqual([out])
    // Attempt 2 was given the two steps left, not the update it would now refuse as changed.
    expect((JSON.parse(String(fake.runs[1]!.runOptions?.input)) as ApplierInput).steps.map((s) => s.path)).toEqual([join(out, 'o'), join(ws, 'z')])
    expect(o.output).toEqual({ ok: true, files: [{ kind: 'update', path: 'a', status: 'applied' }, { kind: 'add', path: join(out, 'o'), status: 'applied' }, { kind: 'add', path: 'z', status: 'applied' }] })
    expect(readFileSync(join(ws, 'a'), 'utf8')).toBe('one\n')
    expect(readFileSync(join(out, 'o'), 'utf8')).toBe('o\n')
  })

  it('the exec policy decides apply_patch like a command: a rule forbidding it refuses every patch', async () => {
    const ws = dir('ws')
    const rules = join(dir('rules'), 'r.rules')
    writeFileSync(rules, 'prefix_rule(pattern=["apply_patch"], decision="forbidden")\n')
    const { orch, fake } = setup({ rules: [rules] }, sandboxedSteps(ws), ws)
    const r = await applyPatch(orch, patch('*** Add File: a', '+x'))
    expect(r).toMatchObject({ ok: false, status: 'forbidden' })
    expect(existsSync(join(ws, 'a'))).toBe(false)
    expect(fake.runs).toHaveLength(0)
  })
})

describe('the apply_patch tool, dispatched from a scripted model', () => {
  const custom = (callId: string, input: string): ResponseItem => ({ type: 'custom_tool_call', call_id: callId, name: 'apply_patch', input, status: 'completed' })

  function dispatch(orch: Parameters<typeof setupDispatch>[1] = {}) {
    const router = new ToolRouter([applyPatchTool, shellTool()])
    let ws = ''
    const d = setupDispatch({}, { onApproval: () => 'approved', ...orch }, (run) => sandboxedSteps(ws)(run))
    ws = d.ws
    return { ...d, router }
  }

  it('is one freeform tool carrying the Lark grammar, shown to the model, not parallel', () => {
    expect(applyPatchTool.name).toEqual({ name: 'apply_patch' })
    expect(applyPatchTool.spec).toMatchObject({ kind: 'freeform', format: { type: 'grammar', syntax: 'lark', definition: expect.stringContaining('"*** Begin Patch"') } })
    expect(applyPatchTool.parallel).toBe(false)
    expect(new ToolRouter([applyPatchTool]).buildStep().specs).toMatchObject([{ name: 'apply_patch', kind: 'freeform' }])
  })

  it('answers a custom call with the report; a patch that does not parse is a result the model can correct', async () => {
    const { dispatcher, router, ws } = dispatch()
    const r = await dispatcher.handleResponse(router.buildStep(), [custom('c1', patch('*** Add File: t', '+1')), custom('c2', 'nope')])
    expect(r.outputs.map((o) => o.output)).toEqual([
      { kind: 'text', text: 'Patch applied.\napplied add t\n', success: true },
      { kind: 'text', success: false, text: "apply_patch: nothing was written: patch line 1: expected '*** Begin Patch', found \"nope\"" },
    ])
    expect(readFileSync(join(ws, 't'), 'utf8')).toBe('1\n')
  })

  it('apply_patch given to the shell tool takes the same path: the applier, never a shell', async () => {
    const { dispatcher, router, ws, fake } = dispatch()
    const script = `apply_patch <<'EOF'\n${patch('*** Add File: viashell', '+s')}EOF\n`
    const r = await dispatcher.handleResponse(router.buildStep(), [fnCall('c1', 'shell', { command: ['bash', '-lc', script] })])
    expect(r.outputs[0]?.output).toEqual({ kind: 'text', text: 'Patch applied.\napplied add viashell\n', success: true })
    expect(readFileSync(join(ws, 'viashell'), 'utf8')).toBe('s\n')
    expect(fake.runs.map((x) => x.argv[0])).toEqual([process.execPath])
  })

  it('a sandbox that cannot be set up is a ToolSetupError, not a result', async () => {
    const router = new ToolRouter([applyPatchTool])
    const { dispatcher } = setupDispatch({}, { onApproval: () => 'approved' }, () => {
      throw new SetupError('landlock', 'landlock_create_ruleset', 38, 'ENOSYS')
    })
    const err = await dispatcher.handleResponse(router.buildStep(), [custom('c1', patch('*** Add File: t', '+1'))]).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ToolSetupError)
  })
  it('bounds the helper (APPLIER_TIMEOUT_MS, also without a timeout from the caller); a stopped helper is a result saying what it applied', async () => {
    const router = new ToolRouter([applyPatchTool])
    // The helper applied its first step, then was stopped at the bound.
    const { dispatcher, orchestrator, fake } = setupDispatch({}, { onApproval: () => 'approved' }, () => ({ stdout: '{"step":0,"status":"applied"}\n', timedOut: true, exitCode: null, signal: 'SIGKILL' }))
    const r = await dispatcher.handleResponse(router.buildStep(), [custom('c1', patch('*** Add File: t', '+1', '*** Add File: u', '+2'))])
    expect(r.outputs[0]?.output).toEqual({
      kind: 'text',
      success: false,
      text: `Patch NOT fully applied; files above the failure were changed.\napplied add t\nnot attempted add u\n(timed_out: the command ran past its timeout (${APPLIER_TIMEOUT_MS} ms) and was stopped)\n`,
    })
    // A caller of applyPatch() that gives no timeout gets the same bound.
    await applyPatch(orchestrator, patch('*** Add File: v', '+3'))
    expect(fake.runs.map((x) => x.runOptions?.timeout)).toEqual([APPLIER_TIMEOUT_MS, APPLIER_TIMEOUT_MS])
  })

  it('refuses to run the helper with a node binary inside a write root of the attempt: a sandboxed command could have replaced it (red team F9)', async () => {
    const node = realpathSync(process.execPath)
    const router = new ToolRouter([applyPatchTool])
    const { dispatcher, fake } = setupDispatch({}, { onApproval: () => 'approved', sandbox: { profile: 'workspace-write', cwd: dir('ws'), write: [dirname(node)] } })
    const err = await dispatcher.handleResponse(router.buildStep(), [custom('c1', patch('*** Add File: t', '+1'))]).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ToolSetupError)
    expect((err as ToolSetupError).setup).toMatchObject({ code: 'E_LOAD', message: expect.stringContaining(`the node binary that runs the apply_patch helper (${node}) lies inside the write root ${dirname(node)}`) })
    expect(fake.runs).toEqual([])
  })

  it('a setup error after an earlier attempt changed files is a result that says what was applied, not a ToolSetupError', () => {
    const report = { ok: false, files: [{ kind: 'add' as const, path: 'a', status: 'applied' as const }, { kind: 'add' as const, path: '/out/o', status: 'not-attempted' as const }] }
    const text = 'Patch NOT fully applied; files above the failure were changed.\napplied add a\nnot attempted add /out/o\n(error: …)\n'
    expect(patchToolOutput({ ok: false, status: 'error', text, report }, { tool: { name: 'apply_patch' } })).toEqual({ kind: 'text', text, success: false })
    expect(() => patchToolOutput({ ok: false, status: 'error', text, report: { ok: false, files: [{ ...report.files[1]! }] } }, { tool: { name: 'apply_patch' } })).toThrow(ToolSetupError)
  })
})
