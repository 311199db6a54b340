/**
 * What verification may read (unreadableIn): the unconfined process reads
 * the files a patch names, so it must refuse every file a command in the
 * profile's sandbox could not read — or see differently: in namespace
 * mode /tmp is the command's own empty tmpfs, and the host's /tmp files
 * are not what a command sees (context matching would be an oracle on
 * them).
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { unreadableIn } from '../../../../src/tools/apply-patch/permissions.js'
import { parsePatch } from '../../../../src/tools/apply-patch/parser.js'
import { verifyPatch } from '../../../../src/tools/apply-patch/verify.js'
import type { OrchestratorWorkspace } from '../../../../src/orchestrator/orchestrator.js'
import { enforcementFor } from '../../orchestrator/fake-sandbox.js'
import { dir } from '../../orchestrator/harness.js'

function namespaceWorkspace(ws: string, hostTmp: string): OrchestratorWorkspace {
  const report = enforcementFor({ profile: 'workspace-write', cwd: ws, mode: 'namespaces' }, ws)
  return { cwd: ws, writeRoots: [ws], report: { ...report, filesystem: { ...report.filesystem, privateDirs: [hostTmp] } }, rulesFiles: [] }
}

describe('unreadableIn', () => {
  it('refuses a file in a directory the sandbox replaces by its own private one (namespace mode /tmp), before its context is matched', async () => {
    const ws = dir('ws')
    const hostTmp = dir('host-tmp')
    writeFileSync(join(hostTmp, 'token'), 'secret-value\n')
    const unreadable = unreadableIn(namespaceWorkspace(ws, hostTmp))
    expect(unreadable(join(hostTmp, 'token'))).toBe('private-tmp')
    // Before: the host's file was read and its lines matched, so "context not found" told the model whether it guessed a line.
    const guess = (line: string) => verifyPatch(parsePatch(`*** Begin Patch\n*** Update File: ${join(hostTmp, 'token')}\n@@\n-${line}\n+x\n*** End Patch\n`), { cwd: ws, unreadable }).catch((e: { kind: string }) => e.kind)
    expect(await guess('secret-value')).toBe('unreadable')
    expect(await guess('wrong')).toBe('unreadable')
    // The workspace itself stays readable.
    expect(unreadable(join(ws, 'a.txt'))).toBeUndefined()
  })
})
