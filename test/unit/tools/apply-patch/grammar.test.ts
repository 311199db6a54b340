/**
 * The grammar the model is told (grammar.ts) and the parser agree: every
 * marker the parser knows is a terminal of the Lark text, and patches
 * written from the grammar's productions parse.
 */
import { describe, expect, it } from 'vitest'
import { ADD_FILE, APPLY_PATCH_GRAMMAR, BEGIN_PATCH, DELETE_FILE, END_OF_FILE, END_PATCH, HUNK, MOVE_TO, UPDATE_FILE } from '../../../../src/tools/apply-patch/grammar.js'
import { patchKeys } from '../../../../src/tools/apply-patch/keys.js'
import { parsePatch } from '../../../../src/tools/apply-patch/parser.js'

describe('the apply_patch grammar', () => {
  it('names every marker the parser reads, as a quoted terminal', () => {
    for (const m of [BEGIN_PATCH, END_PATCH, ADD_FILE, DELETE_FILE, UPDATE_FILE, MOVE_TO, END_OF_FILE, HUNK]) expect(APPLY_PATCH_GRAMMAR).toContain(`"${m}`)
    expect(APPLY_PATCH_GRAMMAR).toMatch(/^start: begin_patch file_op\+ end_patch$/m)
  })

  it('accepts what each production allows (optional move, header-less hunks, end of file, empty add)', () => {
    const p = parsePatch([BEGIN_PATCH, `${ADD_FILE}e`, `${UPDATE_FILE}u`, `${MOVE_TO}v`, HUNK, ' c', '-r', '+a', END_OF_FILE, `${HUNK} ctx`, '+b', `${DELETE_FILE}d`, END_PATCH].join('\n'))
    expect(p.ops.map((o) => o.kind)).toEqual(['add', 'update', 'delete'])
  })
})

describe('patchKeys', () => {
  it('one key per (environment, path, write or removal, level), duplicates folded', () => {
    const w = (...paths: string[]) => paths.map((path) => ({ path, op: 'write' as const }))
    const k = patchKeys('local', w('/w/a', '/w/b', '/w/a'), 'sandbox')
    expect(k).toHaveLength(2)
    const others = [...patchKeys('remote', w('/w/a'), 'sandbox'), ...patchKeys('local', w('/w/a'), { widening: 'write:/x' }), ...patchKeys('local', [{ path: '/w/a', op: 'remove' }], 'sandbox')]
    expect(new Set([...k, ...others]).size).toBe(5)
    expect(patchKeys('local', w('/w/a'), 'sandbox')[0]).toBe(k[0])
  })
})
