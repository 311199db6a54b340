import { describe, expect, it } from 'vitest'
import { PolicyError } from '../../../src/errors.js'
import { parsePolicy } from '../../../src/exec-policy/index.js'
import { specialAddress } from '../../../src/network/addresses.js'
import { parseHostPattern } from '../../../src/network/host-pattern.js'
import { addressAllowed, buildNetworkLists, decideHost, withEntry } from '../../../src/network/policy.js'

describe('host patterns', () => {
  it('a bare * is refused with a PolicyError naming the entry', () => {
    expect(() => buildNetworkLists({ allow: ['ok.example', '*'] })).toThrow(PolicyError)
    expect(() => buildNetworkLists({ allow: ['ok.example', '*'] })).toThrow(/network\.allow\[1\].*bare '\*'/)
    expect(() => buildNetworkLists({ allow: [], deny: ['*:443'] })).toThrow(/network\.deny\[0\]/)
  })

  it('refuses wildcards that are not one leading label, schemes, paths and bad ports', () => {
    for (const bad of ['a*.example.com', '*.*.example.com', 'foo.*.com', 'https://x.com', 'x.com/path', 'user@x.com', 'x.com:0', 'x.com:70000', '', ' ', 'bad host']) {
      expect(() => parseHostPattern(bad, 'w'), bad).toThrow(PolicyError)
    }
  })

  it('reads names, ports, IPv4 and bracketed IPv6 literals', () => {
    expect(parseHostPattern('Registry.NPMJS.org.', 'w')).toMatchObject({ kind: 'exact', host: 'registry.npmjs.org', port: undefined })
    expect(parseHostPattern('*.github.com:443', 'w')).toMatchObject({ kind: 'below', host: 'github.com', port: 443 })
    expect(parseHostPattern('10.0.0.5', 'w')).toMatchObject({ kind: 'ip', host: '10.0.0.5' })
    expect(parseHostPattern('[0:0::1]:8080', 'w')).toMatchObject({ kind: 'ip', host: '::1', port: 8080 })
  })
})

describe('decideHost', () => {
  const lists = buildNetworkLists({ allow: ['registry.npmjs.org', '*.github.com', 'api.example.com:443'], deny: ['evil.github.com'] })

  it('*.x.com matches names below x.com, never x.com itself', () => {
    expect(decideHost(lists, 'codeload.github.com', 443, false).decision).toBe('allow')
    expect(decideHost(lists, 'a.b.github.com', 443, false).decision).toBe('allow')
    expect(decideHost(lists, 'github.com', 443, false)).toMatchObject({ decision: 'deny', source: 'default' })
    expect(decideHost(lists, 'notgithub.com', 443, false).decision).toBe('deny')
  })

  it('deny wins over a wildcard allow and gives its reason', () => {
    expect(decideHost(lists, 'EVIL.github.com.', 443, false)).toMatchObject({ decision: 'deny', source: 'profile', rule: 'evil.github.com' })
  })

  it('a port in the entry limits it to that port', () => {
    expect(decideHost(lists, 'api.example.com', 443, false).decision).toBe('allow')
    expect(decideHost(lists, 'api.example.com', 80, false).decision).toBe('deny')
  })

  it('an unnamed host is asked when an approver exists, denied otherwise', () => {
    expect(decideHost(lists, 'pypi.org', 443, true)).toMatchObject({ decision: 'ask', source: 'default' })
    expect(decideHost(lists, 'pypi.org', 443, false)).toMatchObject({ decision: 'deny', reason: 'pypi.org:443 is not in the allowlist' })
  })

  it('network_rule entries feed the same lists, with their justification as the reason', () => {
    const policy = parsePolicy(
      [
        'network_rule(host="pypi.org", protocol="https", decision="allow")',
        'network_rule(host="registry.npmjs.org", protocol="https", decision="forbidden", justification="use the internal mirror")',
        'network_rule(host="files.example", protocol="http", decision="prompt")',
      ].join('\n'),
      'net.rules',
    )
    const l = buildNetworkLists({ allow: ['registry.npmjs.org'] }, policy.networkRules)
    expect(decideHost(l, 'pypi.org', 443, false)).toMatchObject({ decision: 'allow', source: 'rules' })
    expect(decideHost(l, 'registry.npmjs.org', 443, false)).toMatchObject({ decision: 'deny', source: 'rules', reason: 'use the internal mirror' })
    expect(decideHost(l, 'files.example', 80, true)).toMatchObject({ decision: 'ask', source: 'rules' })
    expect(decideHost(l, 'files.example', 80, false).decision).toBe('deny')
  })

  it('a session answer adds an entry keyed by host and port', () => {
    const l = withEntry(lists, 'allow', 'pypi.org', 443, 'session', 'approved for the session')
    expect(decideHost(l, 'pypi.org', 443, true)).toMatchObject({ decision: 'allow', source: 'session' })
    expect(decideHost(l, 'pypi.org', 80, true).decision).toBe('ask')
  })
})

describe('addresses', () => {
  it('classifies loopback, private, link-local (metadata) and mapped addresses', () => {
    expect(specialAddress('127.0.0.2')).toBe('loopback')
    expect(specialAddress('10.1.2.3')).toMatch(/private/)
    expect(specialAddress('172.31.0.1')).toMatch(/private/)
    expect(specialAddress('192.168.1.1')).toMatch(/private/)
    expect(specialAddress('169.254.169.254')).toMatch(/metadata/)
    expect(specialAddress('::1')).toBe('loopback')
    expect(specialAddress('::ffff:127.0.0.1')).toBe('loopback')
    expect(specialAddress('fd00:ec2::254')).toMatch(/unique local/)
    expect(specialAddress('fe80::1')).toBe('link-local')
    expect(specialAddress('0.0.0.0')).toMatch(/unspecified/)
    expect(specialAddress('93.184.216.34')).toBeUndefined()
    expect(specialAddress('2606:2800:220:1::1')).toBeUndefined()
  })

  it('only an allow entry naming the address itself lets a special address through, and deny still wins', () => {
    const l = buildNetworkLists({ allow: ['127.0.0.2', 'registry.test'], deny: ['127.0.0.3'] })
    expect(addressAllowed(l, '127.0.0.2', 80)).toBe(true)
    expect(addressAllowed(l, '127.0.0.1', 80)).toBe(false)
    expect(addressAllowed(buildNetworkLists({ allow: ['127.0.0.3'], deny: ['127.0.0.3'] }), '127.0.0.3', 80)).toBe(false)
  })
})
