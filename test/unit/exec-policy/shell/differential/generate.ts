/**
 * A seeded generator of shell scripts aimed at the places where a reader of
 * shell text can disagree with the shell: line continuations (between and
 * inside words, at the start of a line), backslash escapes (of ordinary
 * characters, at the start of a line, before `#` and quotes), every kind of
 * quoting and quotes inside quotes, comments (after words, glued to words,
 * ending in a backslash), here-documents, `$'…'`, unusual whitespace (tabs,
 * no-break and ideographic spaces), non-ASCII words, redirections (fds,
 * duplications, targets glued to the operator) and globs.
 *
 * Program names come from STUBS, so that whatever the shell runs is
 * recorded by a stub; a misread name shows up as a "not found" error.
 */

/** mulberry32: tiny seeded PRNG, so a failure reproduces from its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Programs the harness installs as stubs. `no` exits 1 (to drive `||` and `&&`); the rest exit 0. */
export const STUBS = ['p', 'q', 'rm', 'ls', 'git', 'no', 'ïx', 'r', 'm']

/** Files present in the working directory before each run (globs below match some of them). */
export const FIXTURES = ['a.md', 'b.md', '-n.md', 'in.txt', 'x y.txt', 'é.md']

type Rand = () => number

const pick = <T>(rand: Rand, items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T

const NAMES: readonly ((rand: Rand) => string)[] = [
  (r) => pick(r, STUBS),
  (r) => pick(r, STUBS),
  (r) => pick(r, STUBS),
  (r) => `'${pick(r, STUBS)}'`,
  (r) => `"${pick(r, STUBS)}"`,
  (r) => `\\${pick(r, STUBS)}`,
  () => 'r\\\nm',
  () => "r'm'",
  () => '"r"m',
  () => 'r""m',
  () => '\\r\\m',
  () => 'g\\\nit',
  (r0) => (r0() < 0.5 ? pick(r0, STUBS) : pick(r0, ['X=1', 'X="a b"', "'X'=1", 'X\\=1', '%s', "'%s'"])),
]

const ARGS: readonly string[] = [
  '-rf', 'src', 'a.md', '--x=1', 'x#y', 'é', '日本語', 'a\\ b', "'a b'", '"a\'b"', "'a\"b'", '"a\\\\b"', '"a\\$b"', '"a\\`b"', '"a\\"b"',
  "x\\'y", '\\#x', 'HEAD~1', '@{u}', '{}', 'a,b', 'x]', '-', '--', '!', '%s', 'a=b', 'a:b', '"\\n"', "'\\n'", '\\\\', '""', "''",
  '*.md', '?.md', '[ab].md', "'*.md'", '\\*.md', '"*".md', '*', 'a.m?', '[!a].md',
  '"multi\nline"', "'multi\nline'", '"c\\\nd"',
]

/** Refused by the reader: rarer, so most scripts still reach the shells. */
const REFUSED_ARGS: readonly string[] = [
  '$x', '"$x"', '`p`', '$(p)', '{a,b}', 'a{b,c}', '~', '~/x', '=p', "$'a\\nb'", '$"x"', '{x}', '[x',
]

const REDIRECTS: readonly string[] = [
  '>out1', '> out2', '>>out3', '>|out4', '2>&1', '>&2', '1>&2', '2>/dev/null', '>/dev/null', '<in.txt', '< in.txt', '0<in.txt',
  '<>rw1', '3>&-', '2>err1', '2>>err2', '>"out 5"', "> 'out6'", '>o\\ut7', '>o\\\nut8',
]

const REFUSED_REDIRECTS: readonly string[] = [
  '&>out9', '>&out10', '<<<x', '12>out11', '{fd}>out12', '>!out13', '<(p)', '>(p)',
]

const SEPARATORS: readonly string[] = [' && ', ' || ', '; ', ' | ', '\n', ';\n', ' &&\n', '\n\n', ' ;', '|', '&&', '||', '\n# c\n', ' && \\\n', ' |\n']
const REFUSED_SEPARATORS: readonly string[] = [' &\n', ' |& ', ';;', ' & ']

const BLANKS: readonly string[] = [' ', ' ', ' ', ' ', '\t', '  ', ' \\\n', '\\\n', '\u00a0', '\u3000', '\u2003', ' \\\n ']

const COMMENTS: readonly string[] = [' # rm -rf x', ' #c\\', '#glued', ' # c "unclosed', " # c 'q"]

const HEREDOCS: readonly string[] = ['p <<EOF\nrm x\nEOF', "p <<'EOF'\nrm $x\nEOF", 'p <<-EOF\n\trm y\n\tEOF', 'p <<EOF\n$(rm)\nEOF']

function command(rand: Rand): string {
  if (rand() < 0.02) return pick(rand, HEREDOCS)
  const words: string[] = []
  if (rand() < 0.08) words.push(pick(rand, REDIRECTS))
  words.push(pick(rand, NAMES)(rand))
  const n = Math.floor(rand() * 4)
  for (let i = 0; i < n; i++) {
    const r = rand()
    words.push(r < 0.02 ? pick(rand, REFUSED_REDIRECTS) : r < 0.2 ? pick(rand, REDIRECTS) : r < 0.25 ? pick(rand, REFUSED_ARGS) : pick(rand, ARGS))
  }
  let text = words[0] as string
  for (let i = 1; i < words.length; i++) text += pick(rand, BLANKS) + (words[i] as string)
  if (rand() < 0.1) text += pick(rand, COMMENTS)
  return text
}

/** One script: commands and separators, then a few character-level mutations. */
export function generateScript(rand: Rand): string {
  let script = rand() < 0.1 ? pick(rand, ['\n', ' ', '# lead\n', '\\\n']) : ''
  const n = 1 + Math.floor(rand() * 4)
  for (let i = 0; i < n; i++) {
    if (i > 0) script += pick(rand, rand() < 0.05 ? REFUSED_SEPARATORS : SEPARATORS)
    script += command(rand)
  }
  if (rand() < 0.1) script += pick(rand, ['\n', ';', ' ', ' #end'])
  return mutate(rand, script)
}

/** Insertions where readers go wrong: a continuation or a newline anywhere, a backslash before any character. */
function mutate(rand: Rand, script: string): string {
  let s = script
  const edits = rand() < 0.5 ? 0 : 1 + Math.floor(rand() * 2)
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(rand() * (s.length + 1))
    s = s.slice(0, at) + pick(rand, ['\\\n', '\n\\', '\\', '\n', ' ', "'", '"', '#']) + s.slice(at)
  }
  return s
}
