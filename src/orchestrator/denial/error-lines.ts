/**
 * Reading error lines: which lines report a permission error, and which
 * paths they name. Tools word these differently (coreutils quote the path,
 * `sh` does not, Node writes `open '/x'`, Python `: '/x'`), so we collect
 * every plausible path and let the profile decide which ones it denies.
 * Words like "sandbox" in output are never evidence: the command controls
 * its own output.
 *
 * The wordings below are the ones the tools print for the errnos cordon
 * attributes, each seen in a real confined run (test/escape/linux/
 * orchestrator/denial-wording.test.ts):
 *   - libc's strerror, used by bash, coreutils, git, busybox applets and
 *     (through their own tables) Python and Node: "Permission denied",
 *     "Operation not permitted", "Read-only file system", "No such file or
 *     directory"; Python adds `[Errno N]`, Node the errno name;
 *   - dash, which words ENOENT by what it was doing: "No such file"
 *     (open), "Directory nonexistent" (create), "not found" (exec);
 *   - busybox ash, likewise: "no such file", "nonexistent directory",
 *     "not found".
 * Messages without any errno text are not evidence (dash's "can't cd to
 * /x", git's "Could not access '/x'"): the failure could be anything.
 */

/** errno texts and names of a refused filesystem operation. */
const PERMISSION = /permission denied|\bEACCES\b|read-only file system|\bEROFS\b|operation not permitted|\bEPERM\b|\[Errno (?:1|13|30)\]/i

export function isPermissionLine(line: string): boolean {
  return PERMISSION.test(line)
}

/** ENOENT: strerror's text (which covers dash's and ash's "no such file"), dash's and ash's own, the errno name. */
const MISSING = /No such file|Directory nonexistent|nonexistent directory|:\s*not found\s*$|\bENOENT\b|\[Errno 2\]/i

/** A "no such file" line: evidence only for paths the sandbox hides (see path-rules.ts). */
export function isMissingLine(line: string): boolean {
  return MISSING.test(line)
}

/**
 * Quoted spans: 'x', "x", ‘x’, `x'. A quote right after a letter is an
 * apostrophe, not an opening quote: busybox writes `can't open '/x'`.
 */
const QUOTED = /(?<!\w)'([^'\n]+)'|"([^"\n]+)"|‘([^’\n]+)’|`([^'`\n]+)'/g
/** Unquoted absolute / ./ / ../ paths after a separator. */
const BARE_PATH = /(?:^|[\s:=(,])((?:\/|\.\.?\/)[^\s:'"‘’`,)]*)/g
/** `NAME: Permission denied` — the token right before the errno text (sh: `cannot create out.txt: …`). */
const BEFORE_ERRNO =
  /(?:^|\s)([^\s:'"‘’`]+):\s*(?:Permission denied|Read-only file system|Operation not permitted|No such file|Directory nonexistent|nonexistent directory|not found\s*$)/gi

/** Candidate paths named by one error line, in order, without duplicates. */
export function pathsInLine(line: string): string[] {
  const out = new Set<string>()
  for (const m of line.matchAll(QUOTED)) {
    const s = m[1] ?? m[2] ?? m[3] ?? m[4]
    if (s && looksLikePath(s)) out.add(s)
  }
  for (const m of line.matchAll(BARE_PATH)) if (m[1] && looksLikePath(m[1])) out.add(m[1])
  for (const m of line.matchAll(BEFORE_ERRNO)) if (m[1] && looksLikePath(m[1])) out.add(m[1])
  return [...out]
}

function looksLikePath(s: string): boolean {
  if (s.length > 4096 || /^\w+:\/\//.test(s)) return false // URLs are not files
  if (/^\d+$/.test(s)) return false // `sh: 1: …` line numbers
  if (/^(?:E[A-Z]+|line|Errno|Error|error)$/.test(s)) return false
  return !/[\s\0]/.test(s)
}

/** Every non-empty line of stderr, then stdout (some tools report errors there). */
export function outputLines(result: { stderr: string; stdout: string }): { source: 'stderr' | 'stdout'; line: string }[] {
  const lines: { source: 'stderr' | 'stdout'; line: string }[] = []
  for (const source of ['stderr', 'stdout'] as const) {
    // Bound the work on huge outputs: errors are usually at the end.
    const text = result[source].length > 256 * 1024 ? result[source].slice(-256 * 1024) : result[source]
    for (const line of text.split('\n')) if (line.trim()) lines.push({ source, line: line.slice(0, 4096) })
  }
  return lines
}
