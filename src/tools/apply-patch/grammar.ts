/**
 * The apply_patch format, as the model is told it: a Lark grammar for a
 * freeform (custom) tool spec. parser.ts is the real parser of the same
 * language; test/unit/tools/apply-patch/grammar.test.ts keeps the two in
 * step (every marker the parser knows is a terminal here).
 *
 * One file appears once per patch. Paths are relative to the working
 * directory (absolute paths are accepted and need the write permission of
 * wherever they point).
 */

export const BEGIN_PATCH = '*** Begin Patch'
export const END_PATCH = '*** End Patch'
export const ADD_FILE = '*** Add File: '
export const DELETE_FILE = '*** Delete File: '
export const UPDATE_FILE = '*** Update File: '
export const MOVE_TO = '*** Move to: '
export const END_OF_FILE = '*** End of File'
export const HUNK = '@@'

/** The grammar of the freeform tool spec (Lark syntax). */
export const APPLY_PATCH_GRAMMAR = String.raw`start: begin_patch file_op+ end_patch
begin_patch: "*** Begin Patch" LF
end_patch: "*** End Patch" LF?

file_op: add_file | delete_file | update_file

add_file: "*** Add File: " path LF added_line*
added_line: "+" /(.*)/ LF

delete_file: "*** Delete File: " path LF

update_file: "*** Update File: " path LF move_to? hunk*
move_to: "*** Move to: " path LF

hunk: hunk_header? hunk_line+ end_of_file?
hunk_header: "@@" LF | "@@ " /(.+)/ LF
hunk_line: (" " | "-" | "+") /(.*)/ LF
end_of_file: "*** End of File" LF

path: /(.+)/

%import common.LF
`

/** How the format is explained next to the grammar (the tool's description). */
export const APPLY_PATCH_DESCRIPTION = [
  'Edit files with a patch. Each file appears once:',
  '`*** Add File: <path>` then its lines, each starting with `+`;',
  '`*** Delete File: <path>`;',
  '`*** Update File: <path>`, optionally `*** Move to: <new path>`, then hunks.',
  'A hunk starts with `@@` (optionally `@@ <a line just above the change>`, e.g. a function header, to say where),',
  'then lines starting with a space (context, unchanged), `-` (removed) or `+` (added).',
  'Give 3 lines of context around each change; add an `@@ <line>` header when that context occurs more than once.',
  '`*** End of File` after a hunk anchors it at the end of the file.',
  'Wrap everything in `*** Begin Patch` … `*** End Patch`.',
].join('\n')
