/**
 * Deny-read globs as Seatbelt regexes: each regex (run here as a JS RegExp:
 * the subset emitted means the same in both) matches exactly what
 * picomatch — the Linux expansion's matcher — matches, plus everything
 * below a match (a denied directory's contents).
 */
import picomatch from 'picomatch'
import { describe, expect, it } from 'vitest'
import { globToRegex } from '../../../../src/platform/darwin/glob-regex.js'
import { checkRegex } from '../../../helpers/sbpl-check.js'

const GLOBS = [
  '/Users/dev/**/.env',
  '/Users/dev/repo/*.pem',
  '/Users/dev/.config/**/token',
  '/Users/dev/repo/secret?.txt',
  '/Users/dev/repo/[ab]*.key',
  '/Users/dev/repo/*.{pem,key}',
  '/Users/dev/with space/**/id_*',
  '/Users/dev/a.b c$d/**',
]

const PATHS = [
  '/Users/dev/.env', '/Users/dev/repo/.env', '/Users/dev/repo/sub/dir/.env', '/Users/dev/repo/.envrc', '/Users/dev/repo/x.env',
  '/Users/dev/repo/a.pem', '/Users/dev/repo/.pem', '/Users/dev/repo/sub/a.pem', '/Users/dev/repo/a.pemx',
  '/Users/dev/.config/token', '/Users/dev/.config/gh/token', '/Users/dev/.config/a/b/token', '/Users/dev/.config/tokens',
  '/Users/dev/repo/secret1.txt', '/Users/dev/repo/secret12.txt', '/Users/dev/repo/secret/.txt',
  '/Users/dev/repo/a.key', '/Users/dev/repo/b1.key', '/Users/dev/repo/c.key',
  '/Users/dev/repo/bx', '/Users/dev/repo/ax',
  '/Users/dev/repo/k.key', '/Users/dev/repo/k.crt',
  '/Users/dev/with space/id_rsa', '/Users/dev/with space/x/id_ed25519', '/Users/dev/withspace/id_rsa',
  '/Users/dev/a.b c$d', '/Users/dev/a.b c$d/x', '/Users/dev/aXb c$d/x',
]

/** picomatch's answer, extended to everything below a matching path. */
function expected(glob: string, path: string): boolean {
  const m = picomatch(glob, { dot: true })
  const parts = path.split('/')
  for (let i = 2; i <= parts.length; i++) if (m(parts.slice(0, i).join('/'))) return true
  return false
}

describe('globToRegex', () => {
  for (const glob of GLOBS) {
    it(`${glob} matches what picomatch matches (and below)`, () => {
      const re = globToRegex(glob)
      expect(() => checkRegex(re)).not.toThrow()
      const rx = new RegExp(re)
      for (const p of PATHS) expect(rx.test(p), `${glob} vs ${p} (${re})`).toBe(expected(glob, p))
    })
  }

  it('rewrites /tmp, /var and /etc to their /private form (rules match resolved paths)', () => {
    expect(globToRegex('/tmp/**/*.key')).toBe('^/private/tmp(/.*)?/[^/]*\\.key(/.*)?$')
    expect(globToRegex('/var/folders/*/x')).toBe('^/private/var/folders/[^/]*/x(/.*)?$')
    expect(new RegExp(globToRegex('/etc/ssl/*.pem')).test('/private/etc/ssl/a.pem')).toBe(true)
    expect(new RegExp(globToRegex('/etc/ssl/*.pem')).test('/etc/ssl/a.pem')).toBe(false)
  })

  it('escapes every regex metacharacter of a literal segment', () => {
    expect(globToRegex('/a.b/c+d/e(f)/g|h/i^j$/*')).toBe('^/a\\.b/c\\+d/e\\(f\\)/g\\|h/i\\^j\\$/[^/]*(/.*)?$')
  })

  it('[!a] is POSIX negation (picomatch reads it as the class of ! and a; a deny errs on the wider side)', () => {
    const rx = new RegExp(globToRegex('/r/[!a]x'))
    expect([rx.test('/r/bx'), rx.test('/r/ax'), rx.test('/r/!x'), rx.test('/r//x')]).toEqual([true, false, true, false])
  })

  it('refuses a relative glob', () => {
    expect(() => globToRegex('**/.env')).toThrow(/not absolute/)
  })
})
