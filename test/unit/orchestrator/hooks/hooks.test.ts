/**
 * External hooks: JSON on stdin/stdout in the shapes agent tools use,
 * exit status 2 to block, and the launcher's supervision: nothing a hook
 * starts — a setsid'd grandchild included — outlives it (its timeout, or
 * its exit).
 */
import { existsSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runHook, type PermissionRequestInput, type PostToolUseInput, type PreToolUseInput } from '../../../../src/orchestrator/hooks/hooks.js'
import { removeTempDirs, tempDir } from '../../../helpers/temp.js'

afterAll(removeTempDirs)

const node = (code: string) => ({ command: [process.execPath, '-e', code] })
const pre: PreToolUseInput = { event: 'PreToolUse', command: ['git', 'push'], cwd: '/w', sandboxPermissions: 'use_default' }
const signal = new AbortController().signal
const run = <O>(hook: Parameters<typeof runHook>[0], input: { event: string } = pre, timeout = 5_000) =>
  runHook(hook as never, input as never, timeout, signal) as Promise<{ output?: O; error?: string }>

describe('external hook commands', () => {
  it('receive hook_event_name and tool_input on stdin', async () => {
    const echo = node(`let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const i=JSON.parse(s);console.log(JSON.stringify({decision:'block',reason:i.hook_event_name+':'+i.tool_input.command.join(' ')}))})`)
    expect(await run(echo)).toEqual({ output: { decision: 'block', reason: 'PreToolUse:git push' } })
  })

  it('hookSpecificOutput.permissionDecision and updatedInput (a string command is a shell line)', async () => {
    const out = { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', permissionDecisionReason: 'ok', updatedInput: { command: 'git status' } } }
    expect(await run(node(`console.log(${JSON.stringify(JSON.stringify(out))})`))).toEqual({
      output: { decision: 'allow', reason: 'ok', updatedCommand: ['bash', '-lc', 'git status'] },
    })
  })

  it('PermissionRequest: decision.behavior', async () => {
    const input: PermissionRequestInput = { event: 'PermissionRequest', request: { kind: 'exec', attempt: 1, command: ['x'], cwd: '/w', promptClass: 'unknown', reason: 'r' } }
    const out = { hookSpecificOutput: { decision: { behavior: 'deny', message: 'nope' } } }
    expect(await run(node(`console.log(${JSON.stringify(JSON.stringify(out))})`), input)).toEqual({ output: { decision: 'deny', reason: 'nope' } })
  })

  it('PostToolUse: additionalContext and replaceResult; tool_response carries the result', async () => {
    const input: PostToolUseInput = { event: 'PostToolUse', command: ['x'], cwd: '/w', result: { exitCode: 0, signal: null, stdout: 'TOKEN=abc', stderr: '' } }
    const code = `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const i=JSON.parse(s);console.log(JSON.stringify({additionalContext:'seen '+i.tool_response.stdout.length,replaceResult:{stdout:'[redacted]'}}))})`
    expect(await run(node(code), input)).toEqual({ output: { additionalContext: 'seen 9', replaceResult: { stdout: '[redacted]' } } })
  })

  it('exit status 2 blocks with stderr as the reason', async () => {
    expect(await run(node(`process.stderr.write('policy says no');process.exit(2)`))).toEqual({ output: { decision: 'block', reason: 'policy says no' } })
  })

  it('empty output is no decision; other exit statuses and non-JSON are errors', async () => {
    expect(await run(node(''))).toEqual({ output: {} })
    expect((await run(node('process.exit(3)'))).error).toMatch(/exited with status 3/)
    expect((await run(node('console.log("allow")'))).error).toMatch(/not JSON/)
    expect((await run(node('console.log(JSON.stringify({decision:"maybe"}))'))).error).toMatch(/decision/)
    expect((await run({ command: ['/nonexistent/hook'] })).error).toMatch(/cannot run hook/)
  })

  it('a hook that outlives its timeout is killed with its children', async () => {
    const dir = tempDir('hook-')
    const marker = join(dir, 'survived')
    // The hook forks a child that would write the marker after 600 ms, then hangs.
    const hook = { command: ['/bin/sh', '-c', `(sleep 0.6; touch ${marker}) & sleep 30`], timeoutMs: 150 }
    const started = Date.now()
    const r = await run(hook)
    expect(r.error).toMatch(/timed out after 150 ms/)
    expect(Date.now() - started).toBeLessThan(2_000)
    await new Promise((res) => setTimeout(res, 900))
    expect(existsSync(marker)).toBe(false)
  })

  // Issue 13 §8: a grandchild that leaves the process group (setsid) escaped the group kill.
  it.each([
    ['times out', 150, 'sleep 30', /timed out after 150 ms/],
    ['answers and exits at once', 10_000, `echo '{"decision":"allow"}'`, undefined],
  ])('a grandchild that calls setsid dies with the hook when the hook %s', async (_when, timeoutMs, then, error) => {
    const dir = tempDir('hook-')
    const marker = join(dir, 'survived')
    const started = join(dir, 'started')
    const hook = { command: ['/bin/sh', '-c', `(setsid sh -c 'touch ${started}; sleep 0.6; touch ${marker}' &); while [ ! -e ${started} ]; do sleep 0.01; done; ${then}`], timeoutMs }
    const r = await run(hook)
    if (error) expect(r.error).toMatch(error)
    else expect(r).toEqual({ output: { decision: 'allow' } })
    expect(existsSync(started)).toBe(true)
    await new Promise((res) => setTimeout(res, 1_000))
    expect(existsSync(marker)).toBe(false)
  })

  it('a hook that cannot be started is an error (no decision)', async () => {
    expect((await run({ command: ['/nonexistent/cordon-hook'] })).error).toMatch(/cannot run hook: .*ENOENT/)
  })

  it('gets the environment and the working directory it asks for', async () => {
    const dir = tempDir('hook-cwd-')
    const hook = { command: ['/bin/sh', '-c', `printf '{"decision":"block","reason":"%s %s"}' "$HOOK_X" "$(pwd)"`], env: { HOOK_X: 'x1' }, cwd: dir }
    expect(await run(hook)).toEqual({ output: { decision: 'block', reason: `x1 ${realpathSync(dir)}` } })
  })
})

describe('in-process hooks', () => {
  it('time out like commands', async () => {
    const r = await run(() => new Promise(() => {}), pre, 50)
    expect(r.error).toMatch(/timed out after 50 ms/)
  })

  it('a throwing hook is an error, not a decision', async () => {
    const r = await run(() => {
      throw new Error('boom')
    })
    expect(r.error).toMatch(/boom/)
  })
})
