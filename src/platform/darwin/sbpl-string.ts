/**
 * Strings in SBPL, the Scheme dialect Seatbelt profiles are written in.
 *
 * - A string is `"…"` with `\\` and `\"` escaped; cordon writes every other
 *   byte as it is (UTF-8 paths stay UTF-8: Seatbelt compares the bytes of
 *   the resolved path). A path with a control character is refused: no
 *   escape for it is needed by a real path, and none is emitted.
 * - The profile compiler rejects string literals longer than about 1 KB
 *   (Codex and sandbox-runtime users met this with long path lists), so one
 *   string is at most MAX_SBPL_STRING bytes once escaped; longer lists are
 *   split into several regexes (path-filters.ts).
 * - Rules match the resolved path only: /tmp, /var and /etc are symlinks to
 *   /private/…, and a rule naming /tmp matches nothing. Paths are rewritten
 *   to their /private form before they reach a rule.
 */
import { PolicyError } from '../../errors.js'

/** Bytes one SBPL string may hold, escapes included (the compiler's limit is about 1 KB). */
export const MAX_SBPL_STRING = 1000

/** The top-level directories that are symlinks into /private on macOS. */
const PRIVATE_LINKS = ['/tmp', '/var', '/etc']

/** `/tmp/x` → `/private/tmp/x` (and /var, /etc); other paths unchanged. */
export function privatePath(path: string): string {
  for (const link of PRIVATE_LINKS) {
    if (path === link || path.startsWith(`${link}/`)) return `/private${path}`
  }
  return path
}

/** The escaped body of an SBPL string (no quotes). */
function escapeBody(s: string): string {
  return s.replace(/[\\"]/g, (c) => `\\${c}`)
}

/** Refuse what no SBPL string of ours may carry. */
export function checkPathText(path: string, what: string): void {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(path)) {
    throw new PolicyError(`${what} ${JSON.stringify(path)} contains a control character, which cordon does not put into a Seatbelt profile`, { where: path })
  }
}

/** An SBPL string literal, refused with a PolicyError when it is longer than the compiler takes. */
export function sbplString(s: string, what = 'path'): string {
  checkPathText(s, what)
  const body = escapeBody(s)
  if (Buffer.byteLength(body) > MAX_SBPL_STRING) {
    throw new PolicyError(`${what} is ${Buffer.byteLength(body)} bytes in a Seatbelt profile, more than the ${MAX_SBPL_STRING} its compiler takes in one string`, { where: s.slice(0, 80) })
  }
  return `"${body}"`
}

/** Bytes `s` takes inside an SBPL string. */
export function sbplLength(s: string): number {
  return Buffer.byteLength(escapeBody(s))
}

/** A path with every regex metacharacter escaped (Seatbelt's regexes are POSIX extended). */
export function regexLiteral(path: string): string {
  return path.replace(/[.[\]()*+?^$|\\{}]/g, (c) => `\\${c}`)
}
