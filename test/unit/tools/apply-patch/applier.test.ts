/**
 * The applier's steps, run here directly on a temp dir (the escape tests
 * run it inside the real sandbox), and the report read back from its lines.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { applySteps, type ApplierLine } from '../../../../src/tools/apply-patch/applier.js'
import { parsePatch } from '../../../../src/tools/apply-patch/parser.js'
import { readApplierLines, reportOf, reportText, stepsOf } from '../../../../src/tools/apply-patch/steps.js'
import { verifyPatch } from '../../../../src/tools/apply-patch/verify.js'
import { removeTempDirs, tempDir } from '../../../helpers/temp.js'

afterAll(removeTempDirs)

async function planIn(dir: string, ...lines: string[]) {
  const plan = await verifyPatch(parsePatch(`*** Begin Patch\n${lines.join('\n')}\n*** End Patch\n`), { cwd: dir })
  return { plan, steps: stepsOf(plan) }
}

function apply(steps: ReturnType<typeof stepsOf>): ApplierLine[] {
  const lines: ApplierLine[] = []
  applySteps(
    steps.map((s) => s.step),
    (l) => lines.push(l),
  )
  return lines
}

describe('applier', () => {
  it('adds (creating directories), updates in place keeping the mode, moves and deletes', async () => {
    const dir = tempDir('applier-')
    writeFileSync(join(dir, 'u'), 'a\nb\n')
    chmodSync(join(dir, 'u'), 0o751)
    writeFileSync(join(dir, 'm'), 'x\n')
    writeFileSync(join(dir, 'd'), 'bye\n')
    const { plan, steps } = await planIn(dir, '*** Add File: new/deep/f', '+hi', '*** Update File: u', '@@', '-b', '+B', '*** Update File: m', '*** Move to: sub/m2', '@@', '+y', '*** Delete File: d')
    const lines = apply(steps)
    expect(lines.map((l) => l.status)).toEqual(['applied', 'applied', 'applied', 'applied', 'applied'])
    expect(readFileSync(join(dir, 'new/deep/f'), 'utf8')).toBe('hi\n')
    expect(readFileSync(join(dir, 'u'), 'utf8')).toBe('a\nB\n')
    expect(statSync(join(dir, 'u')).mode & 0o777).toBe(0o751)
    expect(readFileSync(join(dir, 'sub/m2'), 'utf8')).toBe('x\ny\n')
    expect(existsSync(join(dir, 'm'))).toBe(false)
    expect(existsSync(join(dir, 'd'))).toBe(false)
    const report = reportOf(plan, steps, lines)
    expect(report).toEqual({
      ok: true,
      files: [
        { kind: 'add', path: 'new/deep/f', status: 'applied' },
        { kind: 'update', path: 'u', status: 'applied' },
        { kind: 'update', path: 'm', moveTo: 'sub/m2', status: 'applied' },
        { kind: 'delete', path: 'd', status: 'applied' },
      ],
    })
    expect(reportText(report)).toBe('Patch applied.\napplied add new/deep/f\napplied update u\napplied update m -> sub/m2\napplied delete d\n')
  })

  it('refuses a file changed since verification and stops there: the report says what was applied, what failed, what was not attempted', async () => {
    const dir = tempDir('applier-')
    writeFileSync(join(dir, 'a'), '1\n')
    writeFileSync(join(dir, 'b'), '2\n')
    const { plan, steps } = await planIn(dir, '*** Add File: first', '+ok', '*** Update File: a', '@@', '-1', '+one', '*** Delete File: b')
    writeFileSync(join(dir, 'a'), '1\nchanged by someone else\n')
    const lines = apply(steps)
    expect(lines).toEqual([{ step: 0, status: 'applied' }, { step: 1, status: 'failed', error: { code: 'ECHANGED', message: expect.stringContaining('changed after the patch was verified') } }])
    expect(readFileSync(join(dir, 'a'), 'utf8')).toBe('1\nchanged by someone else\n')
    expect(readFileSync(join(dir, 'b'), 'utf8')).toBe('2\n')
    const report = reportOf(plan, steps, lines)
    expect(report.ok).toBe(false)
    expect(report.files.map((f) => f.status)).toEqual(['applied', 'failed', 'not-attempted'])
    expect(report.files[1]!.error).toMatchObject({ path: join(dir, 'a'), code: 'ECHANGED' })
    expect(reportText(report)).toMatch(/^Patch NOT fully applied.*\napplied add first\nFAILED update a: ECHANGED .*\nnot attempted delete b\n$/)
  })

  it('never overwrites a file that appeared after verification (O_EXCL), nor writes through a directory', async () => {
    const dir = tempDir('applier-')
    const { steps } = await planIn(dir, '*** Add File: late', '+mine')
    writeFileSync(join(dir, 'late'), 'theirs\n')
    expect(apply(steps)).toEqual([{ step: 0, status: 'failed', error: expect.objectContaining({ code: 'EEXIST', syscall: 'open' }) }])
    expect(readFileSync(join(dir, 'late'), 'utf8')).toBe('theirs\n')
  })

  it('a move whose source changed after verification writes nothing: its new file is not made from the old text', async () => {
    const dir = tempDir('applier-')
    writeFileSync(join(dir, 'src'), 'x\n')
    const { plan, steps } = await planIn(dir, '*** Update File: src', '*** Move to: dst', '@@', '-x', '+y')
    writeFileSync(join(dir, 'src'), 'x\nnew\n')
    const lines = apply(steps)
    // Before: dst was written from the verified text, then the removal failed (a partial move over a changed file).
    expect(lines).toEqual([{ step: 0, status: 'failed', error: expect.objectContaining({ code: 'ECHANGED' }) }])
    expect(reportOf(plan, steps, lines).files).toMatchObject([{ status: 'failed' }])
    expect(existsSync(join(dir, 'dst'))).toBe(false)
    expect(readFileSync(join(dir, 'src'), 'utf8')).toBe('x\nnew\n')
  })

  it('reports a move whose new file was written but whose old one could not be removed as partial', async () => {
    const dir = tempDir('applier-')
    writeFileSync(join(dir, 'src'), 'x\n')
    const { plan, steps } = await planIn(dir, '*** Update File: src', '*** Move to: dst')
    // The source changes between the two steps: the removal's digest check fails.
    const first = apply(steps.slice(0, 1))
    writeFileSync(join(dir, 'src'), 'x\nnew\n')
    const lines = [...first, ...apply(steps.slice(1)).map((l) => ({ ...l, step: l.step + 1 }))]
    const report = reportOf(plan, steps, lines)
    expect(report.files).toEqual([{ kind: 'update', path: 'src', moveTo: 'dst', status: 'partial', error: expect.objectContaining({ path: join(dir, 'src'), code: 'ECHANGED' }) }])
    expect(reportText(report)).toContain('PARTLY APPLIED update src -> dst: ECHANGED')
    expect(readFileSync(join(dir, 'dst'), 'utf8')).toBe('x\n')
  })

  it('reads its lines back from stdout, ignoring a torn last line and other text', () => {
    const out = '{"step":0,"status":"applied"}\nnoise\n{"step":1,"status":"failed","error":{"code":"EACCES","message":"x"}}\n{"step":2,"sta'
    expect(readApplierLines(out)).toEqual([
      { step: 0, status: 'applied' },
      { step: 1, status: 'failed', error: { code: 'EACCES', message: 'x' } },
    ])
  })

  it('a step refused by the file system is a failed line with its errno and syscall, and nothing after it runs', async () => {
    const dir = tempDir('applier-')
    const { steps } = await planIn(dir, '*** Add File: g', '+1', '*** Add File: h', '+2')
    writeFileSync(join(dir, 'g'), '') // EEXIST for the first
    const lines = apply(steps)
    expect(lines).toHaveLength(1)
    expect(existsSync(join(dir, 'h'))).toBe(false)
  })

  describe('writes only the paths of the plan: a swap after verification (while the approval is pending) fails the step', () => {
    it('a new file whose parent directory became a symlink (red team F2: into a widened root) is not created through it', async () => {
      const dir = tempDir('applier-')
      const outside = tempDir('applier-out-')
      const { plan, steps } = await planIn(dir, '*** Add File: fine.txt', '+1', '*** Add File: sub/run.sh', '+#!/bin/sh', '*** Add File: after.txt', '+2')
      symlinkSync(outside, join(dir, 'sub'))
      const lines = apply(steps)
      expect(lines).toEqual([
        { step: 0, status: 'applied' },
        { step: 1, status: 'failed', error: { code: 'EREDIRECT', message: `${join(dir, 'sub')} changed after approval: it now leads to ${outside}; nothing written there` } },
      ])
      expect(readdirSync(outside)).toEqual([])
      expect(reportText(reportOf(plan, steps, lines))).toContain(`FAILED add sub/run.sh: EREDIRECT (${join(dir, 'sub')} changed after approval`)
    })

    it('nor deeper: a directory made on the way is checked too, and a link further up is refused before anything is made', async () => {
      const dir = tempDir('applier-')
      const outside = tempDir('applier-out-')
      mkdirSync(join(dir, 'a'))
      const { steps } = await planIn(dir, '*** Add File: a/b/c/f', '+1')
      rmSync(join(dir, 'a'), { recursive: true })
      symlinkSync(outside, join(dir, 'a'))
      expect(apply(steps)).toEqual([{ step: 0, status: 'failed', error: expect.objectContaining({ code: 'EREDIRECT' }) }])
      expect(readdirSync(outside)).toEqual([])
    })

    it('an update or removal whose directory was swapped for a link to a copy elsewhere leaves that copy alone', async () => {
      const dir = tempDir('applier-')
      const outside = tempDir('applier-out-')
      mkdirSync(join(dir, 'sub'))
      writeFileSync(join(dir, 'sub/config'), 'safe=1\n')
      writeFileSync(join(dir, 'sub/gone'), 'x\n')
      writeFileSync(join(outside, 'config'), 'safe=1\n')
      writeFileSync(join(outside, 'gone'), 'x\n')
      for (const op of [['*** Update File: sub/config', '@@', '-safe=1', '+safe=0'], ['*** Delete File: sub/gone']]) {
        const { steps } = await planIn(dir, ...op)
        renameSync(join(dir, 'sub'), join(dir, 'sub.old'))
        symlinkSync(outside, join(dir, 'sub'))
        expect(apply(steps)).toEqual([{ step: 0, status: 'failed', error: expect.objectContaining({ code: 'EREDIRECT', message: expect.stringContaining(`it now leads to ${outside}`) }) }])
        rmSync(join(dir, 'sub'))
        renameSync(join(dir, 'sub.old'), join(dir, 'sub'))
      }
      expect(readFileSync(join(outside, 'config'), 'utf8')).toBe('safe=1\n')
      expect(readdirSync(outside).sort()).toEqual(['config', 'gone'])
    })

    it('a file swapped for a symlink to a copy elsewhere is refused, not written through', async () => {
      const dir = tempDir('applier-')
      const outside = tempDir('applier-out-')
      writeFileSync(join(dir, 'f'), 'one\n')
      writeFileSync(join(outside, 'f'), 'one\n')
      const { steps } = await planIn(dir, '*** Update File: f', '@@', '-one', '+two')
      rmSync(join(dir, 'f'))
      symlinkSync(join(outside, 'f'), join(dir, 'f'))
      expect(apply(steps)).toEqual([{ step: 0, status: 'failed', error: expect.objectContaining({ code: 'EREDIRECT', message: expect.stringContaining(`it now leads to ${join(outside, 'f')}`) }) }])
      expect(readFileSync(join(outside, 'f'), 'utf8')).toBe('one\n')
    })

    it('a file swapped for a FIFO fails the step at once instead of blocking on it (red team F4)', async () => {
      const dir = tempDir('applier-')
      writeFileSync(join(dir, 'f'), 'one\n')
      writeFileSync(join(dir, 'g'), 'g\n')
      for (const op of [['*** Update File: f', '@@', '-one', '+two'], ['*** Update File: g', '*** Move to: h']]) {
        const { steps } = await planIn(dir, ...op)
        const target = op[0]!.split(': ')[1]!
        rmSync(join(dir, target))
        execFileSync('mkfifo', [join(dir, target)])
        expect(apply(steps)).toEqual([{ step: 0, status: 'failed', error: { code: 'ECHANGED', message: `${join(dir, target)} is no longer a regular file; nothing written to it` } }])
      }
      expect(existsSync(join(dir, 'h'))).toBe(false)
    })
  })
})
