/**
 * The SBPL checker itself: it accepts the base policy and a minimal
 * profile, and refuses each kind of breakage it exists to catch. A checker
 * that passed everything would make every profile test below worthless.
 */
import { describe, expect, it } from 'vitest'
import { loadBasePolicy } from '../../../../src/platform/darwin/base-policy.js'
import { checkProfile, checkRegex, checkRuleText, SbplError } from '../../../helpers/sbpl-check.js'

const OK = '(version 1)\n(deny default (with message "cordon-ab12"))\n(allow file-read* (subpath "/usr/lib"))\n'

describe('SBPL checker', () => {
  it('accepts a minimal well-formed profile', () => {
    expect(() => checkProfile(OK)).not.toThrow()
  })

  it('accepts the constructs of established policies (Chromium, Codex) it does not emit itself', () => {
    const text = `${OK}(allow file-write-data (require-all (path "/dev/null") (vnode-type CHARACTER-DEVICE)))
(allow file-read* file-write* (require-all (regex #"^/dev/ttys[0-9]+") (extension "com.apple.sandbox.pty")))
(allow mach-host*)
(allow iokit-open (iokit-registry-entry-class "RootDomainUserClient"))
(allow sysctl-write (sysctl-name "kern.grade_cputype"))
`
    expect(() => checkProfile(text)).not.toThrow()
    expect(() => checkProfile(`${OK}(allow file-read* (vnode-type WHATEVER))`)).toThrow(/unknown vnode type/)
    expect(() => checkProfile(`${OK}(allow file-read* (regex #"^/x))`)).toThrow(/unterminated string/)
  })

  it('accepts every base-policy rule (profiles/darwin/base.json)', () => {
    const rules = loadBasePolicy()
    expect(rules.length).toBeGreaterThan(10)
    for (const r of rules) expect(() => checkRuleText(r.sbpl), r.sbpl).not.toThrow()
  })

  const broken: [string, string, RegExp][] = [
    ['unbalanced open', OK + '(allow process-fork', /unbalanced '\('/],
    ['unbalanced close', OK + '(allow process-fork))', /unbalanced '\)'/],
    ['unterminated string', OK + '(allow file-read* (literal "/x))', /unterminated string/],
    ['bad escape', OK + '(allow file-read* (literal "/x\\q"))', /bad string escape/],
    ['no version', '(deny default)\n', /must start with \(version 1\)/],
    ['unknown operation', OK + '(allow file-read-everything)', /unknown operation file-read-everything/],
    ['unknown filter', OK + '(allow file-read* (path-glob "/x"))', /unknown filter \(path-glob\)/],
    ['literal too long', OK + `(allow file-read* (literal "/${'a'.repeat(1200)}"))`, /string of 1201 bytes/],
    ['regex count', OK + '(allow file-read* (regex "^/dev/ttys[0-9]{3}$"))', /\{n\} count/],
    ['regex perl class', OK + '(allow file-read* (regex "^/dev/ttys\\\\d+$"))', /Perl class/],
    ['regex unclosed class', OK + '(allow file-read* (regex "^/dev/ttys[0-9+$"))', /does not parse/],
    ['regex look-ahead', OK + '(allow file-read* (regex "^/x(?!y)"))', /\(\?…\)/],
    ['ip host', OK + '(allow network-outbound (remote ip "example.com:443"))', /\* or localhost/],
    ['ip port', OK + '(allow network-outbound (remote ip "localhost:70000"))', /port/],
    ['relative literal', OK + '(allow file-read* (literal "x"))', /not absolute/],
    ['unknown target', OK + '(allow signal (target everyone))', /unknown target/],
    ['operation after filter', OK + '(allow file-read* (literal "/x") process-exec)', /operation after a filter/],
    ['top-level atom', OK + 'allow', /top-level atom/],
  ]
  for (const [name, text, why] of broken) {
    it(`refuses: ${name}`, () => {
      expect(() => checkProfile(text)).toThrow(SbplError)
      expect(() => checkProfile(text)).toThrow(why)
    })
  }

  it('regex subset: the forms cordon emits pass', () => {
    for (const re of ['^/dev/ttys[0-9]+$', '^(/a|/b\\.c)(/.*)?$', '^/private/tmp(/.*)?/[^/]*\\.env(/.*)?$']) expect(() => checkRegex(re)).not.toThrow()
  })
})
