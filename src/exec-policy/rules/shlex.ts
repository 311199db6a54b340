/**
 * POSIX-style word splitting for `match`/`not_match` example strings, the
 * way Codex treats them (shlex): whitespace separates words, single quotes
 * are literal, double quotes allow `\\ \" \$ \``, a backslash outside quotes
 * escapes the next character. No expansions of any kind happen.
 */

/** Split `text` into words, or return undefined when quotes or escapes are unterminated. */
export function shlexSplit(text: string): string[] | undefined {
  const words: string[] = []
  let word = ''
  let inWord = false
  let i = 0
  while (i < text.length) {
    const ch = text[i] as string
    if (/\s/.test(ch)) {
      if (inWord) words.push(word)
      word = ''
      inWord = false
      i++
      continue
    }
    inWord = true
    if (ch === "'") {
      const close = text.indexOf("'", i + 1)
      if (close < 0) return undefined
      word += text.slice(i + 1, close)
      i = close + 1
    } else if (ch === '"') {
      const scan = doubleQuoted(text, i + 1)
      if (!scan) return undefined
      word += scan.value
      i = scan.end
    } else if (ch === '\\') {
      if (i + 1 >= text.length) return undefined
      // An escaped newline joins lines and contributes nothing.
      if (text[i + 1] !== '\n') word += text[i + 1]
      i += 2
    } else {
      word += ch
      i++
    }
  }
  if (inWord) words.push(word)
  return words
}

function doubleQuoted(text: string, start: number): { value: string; end: number } | undefined {
  let value = ''
  let i = start
  while (i < text.length) {
    const ch = text[i] as string
    if (ch === '"') return { value, end: i + 1 }
    const next = text[i + 1]
    if (ch === '\\' && next !== undefined && '\\"$`\n'.includes(next)) {
      if (next !== '\n') value += next
      i += 2
      continue
    }
    value += ch
    i++
  }
  return undefined
}

/** Render argv so that `shlexSplit(shlexJoin(argv))` gives argv back. */
export function shlexJoin(argv: readonly string[]): string {
  return argv.map(quoteWord).join(' ')
}

function quoteWord(word: string): string {
  if (word !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word
  return `'${word.replace(/'/g, `'"'"'`)}'`
}
