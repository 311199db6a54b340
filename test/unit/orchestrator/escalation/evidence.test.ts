/**
 * Evidence from the command's own output is untrusted (issue 13 §6). The
 * only denials a retry widens are the ones the output reports, and the
 * command writes its output. So a request says the evidence is output only,
 * states the real scope of the widening, and a forged path can never get a
 * root proposed that reaches the home directory, `/`, system directories,
 * a shared temp dir, another user's directory, a protected path or a rules
 * file.
 */
import { chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { refusedRoot } from '../../../../src/orchestrator/escalation/root-guard.js'
import { scopeOf } from '../../../../src/orchestrator/escalation/scope.js'
import type { Script } from '../fake-sandbox.js'
import { enforcementFor } from '../fake-sandbox.js'
import { dir, rulesFile, setup } from '../harness.js'
import { itWhere, unless } from '../../../helpers/requirements.js'

const asRoot = unless(process.getuid?.() === 0, `the test process is not root (uid ${process.getuid?.()}): giving a directory to another user needs root`)

/** Attempt 1 "fails" with a line the command printed; any wider attempt succeeds. */
const says = (line: string): Script => ({ options }) => ((options.write?.length ?? 0) > 0 ? { stdout: 'widened' } : { exitCode: 1, stderr: `${line}\n` })

let home: string
let savedHome: string | undefined
beforeEach(() => {
  savedHome = process.env.HOME
  home = dir('home')
  process.env.HOME = home
})
afterEach(() => {
  process.env.HOME = savedHome
})

describe('forged denials never propose a root that reaches too far', () => {
  it.each([
    ['a missing directory in the home: the nearest existing one is the home itself', () => join(home, '.cache', 'x'), /would cover the home directory/],
    ['a file in the home', () => join(home, '.bashrc'), /would cover the home directory/],
    ['a path under a missing top-level directory: the root', () => '/cordon-no-such-dir-7f3/a/b', /would be everything/],
    ['a file in /etc', () => '/etc/cordon-forged.conf', /system directory \/etc/],
    ['the configuration directory in the home', () => join(home, '.config', 'autostart', 'x.desktop'), /where programs keep configuration/],
    ['a file directly in a shared temp dir', () => '/tmp/cordon-forged-x', /shared temp directory/],
  ])('%s', async (_name, path, why) => {
    mkdirSync(join(home, '.config', 'autostart'), { recursive: true })
    const { orch, asked, fake } = setup({}, says(`touch: cannot touch '${path()}': Permission denied`))
    const o = await orch.exec({ command: ['make', 'install'] })
    expect(asked).toHaveLength(0)
    expect(fake.runs).toHaveLength(1)
    expect(o.escalation?.attempted).toBe(false)
    expect(o.escalation?.refused.join('\n')).toMatch(why)
  })

  it('a directory holding a rules file is never proposed', async () => {
    const rules = rulesFile()
    const { orch, asked, fake } = setup({ rules: [rules] }, says(`touch: cannot touch '${join(rules, '..', 'x')}': Permission denied`))
    const o = await orch.exec({ command: ['make', 'install'] })
    expect(asked).toHaveLength(0)
    expect(fake.runs).toHaveLength(1)
    expect(o.escalation?.refused.join('\n')).toMatch(/would hold the rules file .*default\.rules/)
  })

  it('a directory holding a protected path (the workspace parent holds its .git/hooks) is never proposed', async () => {
    const outer = dir('outer')
    const ws = join(outer, 'ws')
    mkdirSync(ws)
    const { orch, asked } = setup({}, says(`touch: cannot touch '${join(outer, 'x')}': Permission denied`), ws)
    const o = await orch.exec({ command: ['make', 'install'] })
    expect(asked).toHaveLength(0)
    expect(o.escalation?.refused.join('\n')).toMatch(/would hold the protected path .*\.git\/hooks/)
  })

  itWhere(asRoot, "another user's directory in a shared temp dir is never proposed", () => {
    const theirs = dir('theirs')
    chownSync(theirs, 65534, 65534)
    const e = enforcementFor({}, '/nonexistent-ws')
    expect(refusedRoot(theirs, 'write', e, { homes: [home] })).toMatch(/another user's directory in the shared \/tmp/)
    expect(refusedRoot(dir('mine'), 'write', e, { homes: [home] })).toBeUndefined()
  })
})

describe('a directory of their own in /var, /opt or /srv', () => {
  // A non-root caller's own directory under /var (a CI work dir, /var/www/me)
  // holds nothing of the system's: it may be proposed. Root owns every system
  // directory, so for root it never is; a file the caller owns (a crontab, a
  // mailbox) is not a directory of their own.
  itWhere(asRoot, 'is proposed for its non-root owner only, and only a directory', () => {
    const mine = mkdtempSync('/var/lib/cordon-guard-')
    try {
      const e = enforcementFor({}, '/nonexistent-ws')
      chownSync(mine, 65534, 65534)
      writeFileSync(join(mine, 'mailbox'), '')
      chownSync(join(mine, 'mailbox'), 65534, 65534)
      expect(refusedRoot(mine, 'write', e, { homes: [home], uid: 65534 })).toBeUndefined()
      expect(refusedRoot(mine, 'write', e, { homes: [home], uid: 1234 })).toMatch(/system directory \/var/)
      expect(refusedRoot(join(mine, 'mailbox'), 'write', e, { homes: [home], uid: 65534 })).toMatch(/system directory \/var/)
      chownSync(mine, 0, 0)
      expect(refusedRoot(mine, 'write', e, { homes: [home], uid: 0 })).toMatch(/system directory \/var/)
      expect(refusedRoot('/var/lib', 'write', e, { homes: [home], uid: 65534 })).toMatch(/system directory \/var/)
      expect(refusedRoot('/etc', 'write', e, { homes: [home], uid: 65534 })).toMatch(/system directory \/etc/)
    } finally {
      rmSync(mine, { recursive: true, force: true })
    }
  })
})

describe('what an approver is told', () => {
  it('the evidence is labelled output-only, the reason quotes the path, and the scope says how far the widening reaches', async () => {
    const out = dir('out')
    const { orch, asked } = setup({}, says(`touch: cannot touch '${out}/made': Permission denied`))
    const o = await orch.exec({ command: ['make', 'out'] })
    expect(o.attempts).toHaveLength(2)
    const r = asked[0]!
    expect(r.evidence).toBe('output-only')
    expect(r.denials?.[0]?.evidence.by).toBe('output')
    expect(r.scope).toEqual([`write: "${out}" — this directory and everything below it`])
    expect(r.reason).toBe(
      `the command's output reports that the sandbox denied (unverified: the command wrote it) write of "${out}/made" (outside-write-roots); the retry would add: write: "${out}" — this directory and everything below it`,
    )
  })

  it("a root in the sandbox's private /tmp is the host's directory, and the scope says so", () => {
    const e = { ...enforcementFor({}, '/ws'), filesystem: { ...enforcementFor({}, '/ws').filesystem, privateDirs: ['/tmp', '/var/tmp'] } }
    const w = { write: ['/tmp/build-1'], read: [], network: false, localSockets: false, full: false, unsandboxed: false }
    expect(scopeOf(w, { enforcement: e })).toEqual([`write: "/tmp/build-1" — this directory and everything below it (the host's, not the sandbox's private /tmp: shared with everything else on the host)`])
  })

  it('a "no sandbox" widening says "everything"; an unconfined one says nothing is confined', () => {
    const full = { write: ['/'], read: ['/'], network: true, localSockets: true, full: true, unsandboxed: false }
    expect(scopeOf(full)[0]).toMatch(/^write: \/ — everything this user can write/)
    expect(scopeOf({ ...full, unsandboxed: true })).toEqual([expect.stringMatching(/^no sandbox at all: every file this user can read or write, every host/)])
  })
})
