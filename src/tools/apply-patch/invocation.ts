/**
 * A patch that reaches cordon as a command instead of through the tool:
 * `['apply_patch', PATCH]`, or a shell script (`bash -lc SCRIPT`, any
 * shell shell-invocation.ts reads) whose only command is
 *
 *     apply_patch <<'EOF'            cd DIR && apply_patch <<'EOF'
 *     *** Begin Patch                …
 *     …                              EOF
 *     *** End Patch
 *     EOF
 *
 * (also `applypatch`, `<<-` with its leading tabs, an unquoted or
 * double-quoted delimiter, or the patch as one quoted word). Such a command
 * goes through applyPatch() — verification, path approvals, the sandboxed
 * applier — and never to a shell: no `apply_patch` program runs.
 *
 * The script's first line is read with cordon's own shell reader
 * (script-reader.ts), so what counts as "only apply_patch" is what the
 * shells would run. With an unquoted delimiter the shell would expand `$`,
 * backquotes and backslashes in the body; a body holding one is `invalid`
 * rather than taken differently from how a shell would take it.
 */
import { basename } from 'node:path'
import { readScript, type ScriptCommand } from '../../exec-policy/shell/script-reader.js'
import { isShellName, readShellInvocation } from '../../exec-policy/shell/shell-invocation.js'

export type PatchInvocation =
  | { readonly kind: 'patch'; readonly patch: string; readonly cwd?: string }
  | { readonly kind: 'invalid'; readonly reason: string }

const NAMES = new Set(['apply_patch', 'applypatch'])

/** The patch a command carries, `invalid` when it calls apply_patch in a form cordon will not guess at, undefined when it is no patch. */
export function readPatchInvocation(argv: readonly string[]): PatchInvocation | undefined {
  const name = basename(argv[0] ?? '')
  if (NAMES.has(name)) return argv.length === 2 ? { kind: 'patch', patch: argv[1] as string } : { kind: 'invalid', reason: `${name} takes the patch as its one argument (got ${argv.length - 1})` }
  if (!isShellName(name)) return undefined
  const inv = readShellInvocation(name, argv.slice(1))
  return inv.kind === 'script' ? fromScript(inv.script) : undefined
}

const HEREDOC = /<<(-?)[ \t]*(?:'([^'\n]+)'|"([^"\n]+)"|([A-Za-z0-9_.-]+))[ \t]*$/

/**
 * What lets a shell word read as something its text does not hold
 * literally: quotes and escapes, expansions ($, backquotes, ~), brace and
 * pathname expansion. A script with none of them and neither name in its
 * text has no word that reads as apply_patch (every exec_command of an
 * ordinary command: no parse).
 */
const SPELLED = /['"\\$`~{}*?[\]]/

function fromScript(script: string): PatchInvocation | undefined {
  if (!SPELLED.test(script) && !script.includes('apply_patch') && !script.includes('applypatch')) return undefined
  const nl = script.indexOf('\n')
  const first = nl < 0 ? script : script.slice(0, nl)
  const here = HEREDOC.exec(first)
  if (!here) return quotedWord(script)
  const head = first.slice(0, here.index)
  const target = patchCommand(head)
  if (target === undefined) return callsIt(head) ? { kind: 'invalid', reason: 'apply_patch must be the only command of the script (optionally after `cd DIR &&`)' } : undefined
  const delimiter = (here[2] ?? here[3] ?? here[4]) as string
  const body = heredocBody(nl < 0 ? '' : script.slice(nl + 1), delimiter, here[1] === '-')
  if (typeof body !== 'string') return body
  if (here[4] !== undefined && /[$`\\]/.test(body)) return { kind: 'invalid', reason: `the heredoc delimiter is unquoted, so a shell would expand $, \` and \\ in the patch: write <<'${delimiter}'` }
  return { kind: 'patch', patch: body, ...(target.cwd !== undefined ? { cwd: target.cwd } : {}) }
}

/** `apply_patch 'PATCH'` as a whole script. */
function quotedWord(script: string): PatchInvocation | undefined {
  const read = readScript(script)
  if (read.opaque) return undefined
  const [only, ...more] = read.commands
  if (!only || !isApplyPatch(only)) return read.commands.some(isApplyPatch) ? { kind: 'invalid', reason: 'apply_patch must be the only command of the script' } : undefined
  if (more.length > 0 || only.argv.length !== 2 || only.globs?.some((g) => g !== undefined)) return { kind: 'invalid', reason: 'apply_patch takes the patch as its one argument' }
  return { kind: 'patch', patch: only.argv[1] as string }
}

/** `apply_patch` or `cd DIR && apply_patch`, plain words, no redirection: where it runs, or undefined. */
function patchCommand(head: string): { cwd?: string } | undefined {
  const read = readScript(head)
  if (read.opaque) return undefined
  const plain = (c: ScriptCommand) => !c.redirects?.length && !c.globs?.some((g) => g !== undefined)
  const cmds = read.commands
  if (!cmds.every(plain)) return undefined
  if (cmds.length === 1 && isApplyPatch(cmds[0]!) && cmds[0]!.argv.length === 1) return {}
  const [cd, ap] = cmds
  // `cd -` is $OLDPWD and `cd -P` an option to a shell, not a directory of that name.
  const dir = cd?.argv[0] === 'cd' && cd.argv.length === 2 && !(cd.argv[1] as string).startsWith('-') ? (cd.argv[1] as string) : undefined
  if (cmds.length === 2 && read.operators[0] === '&&' && dir !== undefined && isApplyPatch(ap!) && ap!.argv.length === 1) return { cwd: dir }
  return undefined
}

function isApplyPatch(c: ScriptCommand): boolean {
  return NAMES.has(c.argv[0] ?? '')
}

/** A command of this (readable) script runs apply_patch. */
function callsIt(text: string): boolean {
  const read = readScript(text)
  return !read.opaque && read.commands.some(isApplyPatch)
}

/** The body up to the delimiter line; only blank lines may follow it. */
function heredocBody(rest: string, delimiter: string, stripTabs: boolean): string | PatchInvocation {
  const lines = rest.split('\n').map((l) => (stripTabs ? l.replace(/^\t+/, '') : l))
  const end = lines.indexOf(delimiter)
  if (end < 0) return { kind: 'invalid', reason: `the heredoc has no closing ${delimiter} line` }
  if (lines.slice(end + 1).some((l) => l.trim() !== '')) return { kind: 'invalid', reason: `apply_patch must be the only command of the script (found more after ${delimiter})` }
  return lines.slice(0, end).map((l) => `${l}\n`).join('')
}
