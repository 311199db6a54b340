/**
 * Issue 11, bug 6: each tool's own wording of the denials cordon attributes,
 * from real confined runs. dash, bash, busybox (ash and applets), coreutils,
 * Python, Node and git each hit a path the profile denies; the orchestrator
 * must attribute what it printed to the right rule and path. Nothing here
 * types an error message: the expected `wording` only checks that the run
 * printed the spelling the case is about (EACCES, EPERM, EROFS, or ENOENT
 * under a directory the namespace sandbox hides), so a case cannot pass on
 * some other line.
 *
 * Every probe is run unconfined first and must succeed there: the failure
 * inside is the sandbox's.
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createOrchestrator, type ApprovalRequest } from '../../../../src/orchestrator/index.js'
import type { DenialRule } from '../../../../src/orchestrator/index.js'
import { describeModes, removeTempDirs, tempDir, type Mode } from './env.js'
import { modeMissing } from '../../../helpers/modes.js'
import { self } from '../../../helpers/identity.js'
import { itWhere, skipNow } from '../../../helpers/requirements.js'

type Op = 'write' | 'read' | 'setuid' | 'exec'
type Errno = 'EACCES' | 'EPERM' | 'EROFS' | 'ENOENT'
type Probe = (path: string) => string[]

/** How each tool writes, reads, sets a setuid bit and runs a program; absent: the tool has no such operation of its own. */
const PYTHON = '/usr/bin/python3'
const TOOLS: Record<string, { needs: string; probes: Partial<Record<Op, Probe>> }> = {
  dash: { needs: '/bin/dash', probes: { write: (p) => ['dash', '-c', `echo x > ${p}`], read: (p) => ['dash', '-c', `cat < ${p}`], exec: (p) => ['dash', '-c', p] } },
  bash: { needs: '/bin/bash', probes: { write: (p) => ['bash', '-c', `echo x > ${p}`], read: (p) => ['bash', '-c', `cat < ${p}`], exec: (p) => ['bash', '-c', p] } },
  'busybox sh': {
    needs: '/bin/busybox',
    probes: { write: (p) => ['busybox', 'sh', '-c', `echo x > ${p}`], read: (p) => ['busybox', 'sh', '-c', `busybox cat < ${p}`], exec: (p) => ['busybox', 'sh', '-c', p] },
  },
  'busybox applets': {
    needs: '/bin/busybox',
    probes: { write: (p) => ['busybox', 'touch', p], read: (p) => ['busybox', 'cat', p], setuid: (p) => ['busybox', 'chmod', 'u+s', p] },
  },
  coreutils: { needs: '/bin/touch', probes: { write: (p) => ['touch', p], read: (p) => ['cat', p], setuid: (p) => ['chmod', 'u+s', p] } },
  python: {
    needs: PYTHON,
    probes: {
      write: (p) => [PYTHON, '-c', `open(${JSON.stringify(p)}, 'w')`],
      read: (p) => [PYTHON, '-c', `open(${JSON.stringify(p)}).read()`],
      setuid: (p) => [PYTHON, '-c', `import os; os.chmod(${JSON.stringify(p)}, 0o4644)`],
    },
  },
  node: {
    needs: process.execPath,
    probes: {
      write: (p) => [process.execPath, '-e', `require('fs').writeFileSync(${JSON.stringify(p)}, 'x')`],
      read: (p) => [process.execPath, '-e', `require('fs').readFileSync(${JSON.stringify(p)})`],
      setuid: (p) => [process.execPath, '-e', `require('fs').chmodSync(${JSON.stringify(p)}, 0o4644)`],
    },
  },
  git: {
    needs: '/usr/bin/git',
    probes: {
      write: (p) => ['git', 'config', '--file', p, 'cordon.probe', 'x'],
      read: (p) => ['git', 'hash-object', p],
    },
  },
}

/** What each errno looks like, in any of the tools' spellings (Python's `[Errno N]`, Node's errno names, dash's and ash's own ENOENT texts). */
const WORDING: Record<Errno, RegExp> = {
  EACCES: /Permission denied|EACCES|\[Errno 13\]/,
  EPERM: /Operation not permitted|EPERM|\[Errno 1\]/,
  EROFS: /Read-only file system|EROFS|\[Errno 30\]/,
  ENOENT: /No such file|Directory nonexistent|nonexistent directory|not found|ENOENT|\[Errno 2\]/i,
}

interface Case {
  readonly op: Op
  readonly what: string
  readonly errno: Errno
  readonly rule: DenialRule
  readonly operation: 'read' | 'write'
  /** A fresh target for one run. */
  readonly target: () => string
}

const hidden: string[] = []
afterAll(() => {
  removeTempDirs()
  for (const dir of hidden) rmSync(dir, { recursive: true, force: true })
})

function tree() {
  const ws = tempDir('wording-ws')
  const out = tempDir('wording-out')
  const secretDir = join(tempDir('wording-home'), 'secret')
  mkdirSync(secretDir)
  // On the host, under /tmp: in namespace mode /tmp is a private tmpfs, and this directory is not in it.
  const hid = mkdtempSync('/tmp/cordon-wording-')
  hidden.push(hid)
  return { ws, out, secretDir, hid }
}

let serial = 0
const fresh = (dir: string, content?: string, mode = 0o644): (() => string) => () => {
  const path = join(dir, `t${++serial}`)
  if (content !== undefined) writeFileSync(path, content, { mode })
  return path
}

function casesFor(mode: Mode, t: ReturnType<typeof tree>): Case[] {
  const ns = mode === 'namespaces'
  const cases: Case[] = [
    // Landlock refuses with EACCES; namespace mode's read-only mounts with EROFS.
    { op: 'write', what: 'write outside the write roots', errno: ns ? 'EROFS' : 'EACCES', rule: 'outside-write-roots', operation: 'write', target: fresh(t.out) },
    { op: 'read', what: 'read inside a denied read', errno: 'EACCES', rule: 'deny-read', operation: 'read', target: fresh(t.secretDir, 'secret') },
    // The seccomp filter refuses setuid/setgid bits with EPERM, before any mount or Landlock rule.
    { op: 'setuid', what: 'setuid bit outside the write roots', errno: 'EPERM', rule: 'outside-write-roots', operation: 'write', target: fresh(t.out, 'data') },
  ]
  if (ns) {
    // The host's /tmp/cordon-wording-* is not in the sandbox's private /tmp.
    cases.push(
      { op: 'write', what: 'write under a hidden /tmp directory', errno: 'ENOENT', rule: 'private-tmp', operation: 'write', target: fresh(t.hid) },
      { op: 'read', what: 'read under a hidden /tmp directory', errno: 'ENOENT', rule: 'private-tmp', operation: 'write', target: fresh(t.hid, 'there') },
      { op: 'exec', what: 'run a program under a hidden /tmp directory', errno: 'ENOENT', rule: 'private-tmp', operation: 'write', target: fresh(t.hid, '#!/bin/sh\nexit 0\n', 0o755) },
    )
  }
  return cases
}

/** The probe outside any sandbox, on a target of its own: it must work. */
function worksUnconfined(argv: string[], cwd: string): void {
  const r = spawnSync(argv[0] as string, argv.slice(1), { cwd, encoding: 'utf8' })
  expect(r.status, `${argv.join(' ')} unconfined: ${r.stderr}`).toBe(0)
}

/** A sibling target like `c.target()` gives, for the unconfined run (a write must not find the file already made). */
function unconfinedTarget(c: Case): string {
  const path = c.target()
  if (c.op === 'setuid') chmodSync(path, 0o644)
  return path
}

describeModes((mode) => {
  const t = tree()
  const orch = createOrchestrator({
    sandbox: { profile: 'workspace-write', cwd: t.ws, mode, denyRead: [t.secretDir] },
    onApproval: () => 'approved',
    escalateOnFailure: false,
  })
  const rows = Object.entries(TOOLS).flatMap(([tool, { needs, probes }]) =>
    casesFor(mode, t).flatMap((c) => (probes[c.op] ? [{ name: `${tool}: ${c.what} (${c.errno})`, tool, needs, probe: probes[c.op] as Probe, c }] : [])),
  )

  it.for(rows)('$name', async ({ tool, needs, probe, c }, ctx) => {
    if (!existsSync(needs)) skipNow(ctx, { reason: `${tool}: ${needs} is not installed (apt-get install ${tool.startsWith('busybox') ? 'busybox' : tool})` })
    worksUnconfined(probe(unconfinedTarget(c)), t.ws)
    const target = c.target()
    const o = await orch.exec({ command: probe(target) })
    const output = `${o.result?.stderr ?? ''}${o.result?.stdout ?? ''}`
    expect(o.result?.exitCode, output).not.toBe(0)
    expect(output, `the run must print the ${c.errno} wording this case is about`).toMatch(WORDING[c.errno])
    expect(o.denials, output).toEqual([{ operation: c.operation, rule: c.rule, path: join(realpathSync(dirname(target)), basename(target)), evidence: expect.anything() }])
    expect(o.denials[0]?.evidence.text).toMatch(WORDING[c.errno])
  })
})

describe('the issue 11 scenario: sh (dash) writing under a hidden /tmp directory', () => {
  itWhere(modeMissing(self(), 'namespaces'), "is attributed, and the approved wider attempt writes the host's file", async () => {
    const t = tree()
    const target = join(t.hid, 'f')
    const asked: ApprovalRequest[] = []
    const orch = createOrchestrator({ sandbox: { profile: 'workspace-write', cwd: t.ws, mode: 'namespaces' }, onApproval: (r) => (asked.push(r), 'approved') })
    const o = await orch.exec({ command: ['sh', '-c', `echo x > ${target}`] })
    expect(o.attempts[0]?.result?.stderr).toMatch(/Directory nonexistent/)
    expect(o.attempts[0]?.denials).toMatchObject([{ operation: 'write', rule: 'private-tmp', path: target }])
    // Asked once to run the script (a redirection makes it opaque), once to widen.
    expect(asked.map((r) => r.kind)).toEqual(['exec', 'escalation'])
    expect(o.attempts).toHaveLength(2)
    expect(o.result?.exitCode).toBe(0)
    expect(existsSync(target)).toBe(true)
  })
})
