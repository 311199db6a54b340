/**
 * The orchestrator with the real sandbox: profiles × approval modes ×
 * actions, each with the expected prompts, decision and filesystem (or
 * network) effect. The approver approves everything it is asked, so what
 * differs between cells is *whether* it is asked, how many attempts run,
 * and what happened on disk.
 *
 * Expected values come from two small tables read together:
 *  - FIRST_PROMPT[action][mode]: asked before attempt 1, run without asking, or forbidden;
 *  - DENIED_BY[action]: the profiles whose sandbox denies the action's effect
 *    (which leads to an escalation prompt and a second, wider attempt,
 *    except in mode `never`, which never retries).
 */
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOrchestrator, type ApprovalMode, type ApprovalRequest } from '../../../../src/orchestrator/index.js'
import { describeModes, removeTempDirs, tempDir, type Mode } from './env.js'
import { BODY, fetchCommand, startServer } from './server.js'

type Profile = 'read-only' | 'workspace-write' | 'full-access'
type Action = 'safe' | 'write-inside' | 'write-outside' | 'network' | 'dangerous' | 'compound'
type First = 'ask' | 'run' | 'forbidden'

const PROFILES: Profile[] = ['read-only', 'workspace-write', 'full-access']
const MODES: ApprovalMode[] = ['untrusted', 'on-request', 'on-failure', 'never']
const ACTIONS: Action[] = ['safe', 'write-inside', 'write-outside', 'network', 'dangerous', 'compound']

//                                     untrusted   on-request  on-failure  never
const FIRST_PROMPT: Record<Action, [First, First, First, First]> = {
  safe: /*          ls              */ ['run', 'run', 'run', 'run'],
  'write-inside': /* touch in ws    */ ['ask', 'run', 'run', 'run'],
  'write-outside': /* touch /tmp/…  */ ['ask', 'run', 'run', 'run'],
  network: /*       node fetch      */ ['ask', 'run', 'run', 'run'],
  dangerous: /*     rm -f           */ ['ask', 'ask', 'ask', 'forbidden'],
  compound: /*      ls && rm -f     */ ['ask', 'ask', 'ask', 'forbidden'],
}

const DENIED_BY: Record<Action, Profile[]> = {
  safe: [],
  'write-inside': ['read-only'],
  'write-outside': ['read-only', 'workspace-write'],
  network: ['read-only', 'workspace-write'],
  dangerous: ['read-only'],
  compound: ['read-only'],
}

/**
 * Exception: under full-access every PATH directory is writable, so a bare
 * `ls` cannot be trusted to be the system's ls and untrusted mode asks for
 * it (threat-model.md § The orchestrator: a binary shadowing an approved
 * one).
 */
function firstPrompt(profile: Profile, mode: ApprovalMode, action: Action): First {
  if (profile === 'full-access' && mode === 'untrusted' && action === 'safe') return 'ask'
  return FIRST_PROMPT[action][MODES.indexOf(mode)] as First
}

interface Cell {
  ws: string
  out: string
  command: string[]
  /** Did the action's effect happen? */
  effect: (stdout: string) => boolean
}

function cell(action: Action, url: string): Cell {
  const ws = tempDir('matrix-ws')
  const out = tempDir('matrix-out')
  writeFileSync(join(ws, 'marker.txt'), 'm')
  writeFileSync(join(ws, 'victim.txt'), 'v')
  const gone = (f: string) => () => !existsSync(join(ws, f))
  switch (action) {
    case 'safe':
      return { ws, out, command: ['ls'], effect: (s) => s.includes('marker.txt') }
    case 'write-inside':
      return { ws, out, command: ['touch', 'inside.txt'], effect: () => existsSync(join(ws, 'inside.txt')) }
    case 'write-outside':
      return { ws, out, command: ['touch', join(out, 'outside.txt')], effect: () => existsSync(join(out, 'outside.txt')) }
    case 'network':
      return { ws, out, command: fetchCommand(url), effect: (s) => s === BODY }
    case 'dangerous':
      return { ws, out, command: ['rm', '-f', 'victim.txt'], effect: gone('victim.txt') }
    case 'compound':
      // `sh -c`, not `bash -lc`: a login shell runs the host's profile scripts, whose own denied writes would widen too.
      return { ws, out, command: ['sh', '-c', 'ls && rm -f victim.txt'], effect: gone('victim.txt') }
  }
}

let server: Awaited<ReturnType<typeof startServer>>
beforeAll(async () => {
  server = await startServer()
})
afterAll(async () => {
  await server?.close()
  removeTempDirs()
})

describeModes((sandboxMode: Mode) => {
  describe.each(PROFILES)('profile %s', (profile) => {
    describe.concurrent.each(MODES)('approval mode %s', (mode) => {
      it.each(ACTIONS)('%s', async (action) => {
        const c = cell(action, server.url)
        const asked: ApprovalRequest[] = []
        const orch = createOrchestrator({ sandbox: { profile, cwd: c.ws, mode: sandboxMode }, approvalMode: mode, onApproval: (r) => (asked.push(r), 'approved') })
        const outcome = await orch.exec({ command: c.command, timeout: 20_000 })

        if (sandboxMode === 'namespaces' && profile === 'full-access') {
          // The namespace backend refuses a write root containing its own bwrap: set up fails, nothing runs.
          if (firstPrompt(profile, mode, action) === 'forbidden') return expect(outcome.status).toBe('forbidden')
          expect(outcome.status).toBe('error')
          expect(outcome.attempts[0]?.error?.code).toBe('E_UNSUPPORTED')
          return
        }
        const first = firstPrompt(profile, mode, action)
        const denied = DENIED_BY[action].includes(profile)
        if (first === 'forbidden') {
          expect(outcome.status).toBe('forbidden')
          expect(outcome.attempts).toHaveLength(0)
          expect(asked).toHaveLength(0)
          expect(c.effect('')).toBe(false)
          return
        }
        const retried = denied && mode !== 'never'
        const expectedPrompts = [...(first === 'ask' ? ['exec'] : []), ...(retried ? ['escalation'] : [])]
        expect(asked.map((r) => r.kind), JSON.stringify(outcome.attempts.map((a) => a.denials))).toEqual(expectedPrompts)
        expect(outcome.status).toBe('completed')
        expect(outcome.approval?.source).toBe(first === 'ask' ? 'user' : 'policy')
        expect(outcome.attempts).toHaveLength(retried ? 2 : 1)
        if (denied) {
          // The first attempt was denied, and the denial was attributed, not guessed.
          const rule = action === 'network' ? 'network-off' : 'outside-write-roots'
          expect(outcome.attempts[0]!.denials.map((d) => d.rule)).toContain(rule)
          expect(outcome.attempts[0]!.result?.exitCode).not.toBe(0)
        }
        if (retried) {
          const w = outcome.attempts[1]!.sandbox.widening!
          // Only what was denied is widened.
          if (action === 'network') expect(w).toMatchObject({ network: true, write: [] })
          else expect(w).toMatchObject({ network: false, write: [action === 'write-outside' ? c.out : c.ws] })
          expect(outcome.attempts[1]!.approval.source).toBe('user')
        }
        const last = outcome.attempts[outcome.attempts.length - 1]!
        expect(c.effect(last.result?.stdout ?? '')).toBe(!denied || retried)
        expect(last.result?.exitCode === 0).toBe(!denied || retried)
      })
    })
  })
})
