/**
 * Text the command or the model wrote — a path or host taken from the
 * command's output, a justification, a word of the script — never becomes
 * part of cordon's own sentences as it is (issue 13 §8). It goes in its own
 * field; where a sentence has to name it, it is quoted, escaped and bounded,
 * so it cannot pose as cordon's words: no closing quote, no newline that
 * starts a "new line" of the reason, no terminal escape or bidi control
 * that rearranges what the approver reads, no screenful of text.
 */

/** Control characters, and format characters that reorder or hide text (bidi overrides and isolates, zero-width, BOM). */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/g

function escapeChar(ch: string): string {
  const code = ch.codePointAt(0) as number
  if (ch === '\n') return '\\n'
  if (ch === '\t') return '\\t'
  if (ch === '\r') return '\\r'
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`
}

function bound(text: string, max: number): string {
  const chars = [...text]
  return chars.length > max ? `${chars.slice(0, max).join('')}…` : text
}

/** `text` cut to `max` characters (with `…`), every unsafe character written as an escape. */
export function escaped(text: string, max: number): string {
  return bound(text, max).replace(UNSAFE, escapeChar)
}

/** Untrusted text for a sentence: double-quoted, backslash and quote escaped, unsafe characters escaped, at most `max` characters. */
export function quote(text: string, max = 200): string {
  return `"${bound(text, max).replace(/[\\"]/g, (c) => `\\${c}`).replace(UNSAFE, escapeChar)}"`
}

/** A sentence of the exec policy that may embed script text: escaped and bounded, not quoted. */
export function sentence(text: string, max = 400): string {
  return escaped(text, max)
}

/** Evidence lines as kept in a denial: escaped (terminal escapes, bidi) and bounded. */
export function evidenceLine(text: string): string {
  return escaped(text, 512)
}
