/**
 * Deny-read globs as Seatbelt regexes. On Linux a glob is expanded to the
 * files that match at launch (src/profile/globs.ts); Seatbelt checks a
 * regex on every open, so a file created later that matches is denied too.
 *
 * The translation follows picomatch with `dot: true` (the semantics of the
 * Linux expansion): `*` is any run of characters within one path segment,
 * `?` one such character, `**` as a whole segment any number of segments
 * (none included), `[…]` a character class, `{a,b}` alternatives. A match
 * also denies everything below it (a denied directory's contents), so each
 * regex ends in `(/.*)?$`. Only the regex subset Seatbelt's compiler takes
 * is produced: anchors, `.`, bracket classes, `*`, `?`, groups with `|`
 * (no `{n}` counts, no `\d`, no look-around).
 */
import { PolicyError } from '../../errors.js'
import { privatePath, regexLiteral } from './sbpl-string.js'

const SEGMENT_CHAR = '[^/]'

/** A bracket class `[…]` starting at `i`: its regex and the index after it. */
function bracket(glob: string, i: number): [string, number] {
  const end = glob.indexOf(']', i + 2)
  if (end < 0) return ['\\[', i + 1]
  let body = glob.slice(i + 1, end)
  const negated = body.startsWith('!') || body.startsWith('^')
  if (negated) body = body.slice(1)
  // Inside a class only `\`, `]` and `[` are special to us; `/` never matches.
  const safe = body.replace(/[\\[]/g, (c) => `\\${c}`)
  return [negated ? `[^/${safe}]` : `[${safe}]`, end + 1]
}

/** `{a,b,c}` starting at `i`: `(a|b|c)` with each part translated, and the index after it. */
function braces(glob: string, i: number): [string, number] {
  let depth = 0
  for (let j = i; j < glob.length; j++) {
    if (glob[j] === '{') depth++
    else if (glob[j] === '}' && --depth === 0) {
      const parts = splitTop(glob.slice(i + 1, j))
      if (parts.length < 2) return ['\\{', i + 1]
      return [`(${parts.map(segmentRegex).join('|')})`, j + 1]
    }
  }
  return ['\\{', i + 1]
}

/** Split on commas that are not inside nested braces. */
function splitTop(s: string): string[] {
  const out: string[] = []
  let depth = 0
  let start = 0
  for (let j = 0; j < s.length; j++) {
    if (s[j] === '{') depth++
    else if (s[j] === '}') depth--
    else if (s[j] === ',' && depth === 0) {
      out.push(s.slice(start, j))
      start = j + 1
    }
  }
  out.push(s.slice(start))
  return out
}

/** One glob fragment (no `**` segment handling) as a regex. */
function segmentRegex(glob: string): string {
  let out = ''
  for (let i = 0; i < glob.length; ) {
    const c = glob[i]!
    if (c === '*') {
      while (glob[i] === '*') i++
      out += `${SEGMENT_CHAR}*`
    } else if (c === '?') {
      out += SEGMENT_CHAR
      i++
    } else if (c === '[') {
      const [r, next] = bracket(glob, i)
      out += r
      i = next
    } else if (c === '{') {
      const [r, next] = braces(glob, i)
      out += r
      i = next
    } else if (c === '\\' && i + 1 < glob.length) {
      out += regexLiteral(glob[i + 1]!)
      i += 2
    } else {
      out += regexLiteral(c)
      i++
    }
  }
  return out
}

/**
 * An absolute glob → an anchored regex over resolved paths. `/tmp/…`,
 * `/var/…` and `/etc/…` are rewritten to `/private/…` first.
 */
export function globToRegex(glob: string): string {
  if (!glob.startsWith('/')) throw new PolicyError(`deny-read glob ${JSON.stringify(glob)} is not absolute`, { where: glob })
  const segments = privatePath(glob).split('/').slice(1)
  let out = '^'
  segments.forEach((seg, k) => {
    const last = k === segments.length - 1
    // A trailing `**` matches the directory and everything below: the `(/.*)?` every regex ends in.
    if (seg === '**') out += last ? '' : '(/.*)?'
    else out += `/${segmentRegex(seg)}`
  })
  return `${out}(/.*)?$`
}
