/**
 * Starlark string literal bodies: escapes, raw strings, triple quotes.
 * The lexer hands us the source and the offset just past the opening quote;
 * we return the decoded text and where the literal ends. Invalid escapes are
 * errors (Starlark rejects them; silently keeping the backslash would let a
 * typo change which command a rule matches).
 */

export interface StringScan {
  readonly value: string
  /** Offset just past the closing quote. */
  readonly end: number
}

/**
 * A problem inside a literal, at a source offset (-1: the literal as a whole,
 * e.g. unterminated); the lexer turns it into a PolicyError.
 */
export class StringLiteralError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message)
  }
}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v',
  '\\': '\\', "'": "'", '"': '"',
}

/**
 * Scan a literal whose opening quote(s) end at `start`.
 * `quote` is `'` or `"`; `triple` says whether it opened with three of them.
 */
export function scanString(src: string, start: number, quote: string, triple: boolean, raw: boolean): StringScan {
  const close = triple ? quote.repeat(3) : quote
  let out = ''
  let i = start
  while (i < src.length) {
    if (src.startsWith(close, i)) return { value: out, end: i + close.length }
    const ch = src[i] as string
    if ((ch === '\n' || ch === '\r') && !triple) throw new StringLiteralError('unterminated string literal', -1)
    if (ch !== '\\') {
      out += ch
      i++
      continue
    }
    if (raw) {
      // In a raw string a backslash stays, but still protects the next char from ending the literal.
      out += src.slice(i, i + 2)
      i += 2
      continue
    }
    const esc = decodeEscape(src, i)
    out += esc.text
    i = esc.next
  }
  throw new StringLiteralError('unterminated string literal', -1)
}

/** Decode the escape at `src[i] === '\\'`. */
function decodeEscape(src: string, i: number): { text: string; next: number } {
  const c = src[i + 1]
  if (c === undefined) throw new StringLiteralError('unterminated string literal', -1)
  if (c === '\n') return { text: '', next: i + 2 }
  if (c === '\r') return { text: '', next: src[i + 2] === '\n' ? i + 3 : i + 2 }
  const simple = SIMPLE_ESCAPES[c]
  if (simple !== undefined) return { text: simple, next: i + 2 }
  if (c >= '0' && c <= '7') return decodeOctal(src, i)
  if (c === 'x') return decodeHex(src, i, 2)
  if (c === 'u') return decodeHex(src, i, 4)
  if (c === 'U') return decodeHex(src, i, 8)
  throw new StringLiteralError(`invalid escape sequence \\${c}`, i)
}

function decodeOctal(src: string, i: number): { text: string; next: number } {
  let j = i + 1
  while (j < i + 4 && /[0-7]/.test(src[j] ?? '')) j++
  const code = parseInt(src.slice(i + 1, j), 8)
  if (code > 0xff) throw new StringLiteralError('octal escape out of range', i)
  return { text: String.fromCharCode(code), next: j }
}

function decodeHex(src: string, i: number, digits: number): { text: string; next: number } {
  const hex = src.slice(i + 2, i + 2 + digits)
  if (hex.length !== digits || !/^[0-9a-fA-F]+$/.test(hex)) {
    throw new StringLiteralError(`invalid \\${src[i + 1]} escape: expected ${digits} hex digits`, i)
  }
  const code = parseInt(hex, 16)
  // Surrogate halves are not characters; Starlark strings hold Unicode text.
  if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
    throw new StringLiteralError(`invalid code point \\${src[i + 1]}${hex}`, i)
  }
  return { text: String.fromCodePoint(code), next: i + 2 + digits }
}
