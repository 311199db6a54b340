/** profiles/linux/seccomp.rules and its parser: data with a reason on every line. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { constants } from 'node:os'
import { describe, expect, it } from 'vitest'
import { PolicyError } from '../../../../../src/errors.js'
import { packageRoot } from '../../../../../src/native/load.js'
import { loadSeccompRules, parseSeccompRules, PARSED_RULES_FILE, RULES_PARSER, rulesFrom } from '../../../../../src/platform/linux/seccomp/seccomp-rules.js'
import { thrown } from '../../../../helpers/errors.js'

const file = join(packageRoot, 'profiles', 'linux', 'seccomp.rules')
const text = readFileSync(file, 'utf8')

const errorOf = (src: string) => thrown(PolicyError, () => parseSeccompRules(src, 'test.rules'))

describe('the shipped seccomp.rules', () => {
  const rules = loadSeccompRules()

  it('parses, and every rule line carries a reason', () => {
    const ruleLines = text.split('\n').filter((l) => l.replace(/#.*/, '').trim())
    expect(rules.length).toBe(ruleLines.length)
    for (const r of rules) expect(r.reason.length, r.syscall).toBeGreaterThan(10)
  })

  it('covers the threat model with the documented actions', () => {
    const action = (name: string) => rules.filter((r) => r.syscall === name).map((r) => (r.action === 'kill' ? 'kill' : r.errno))
    expect(action('clone3')).toEqual([constants.errno.ENOSYS])
    for (const s of ['io_uring_setup', 'ptrace', 'bpf', 'perf_event_open', 'userfaultfd', 'keyctl', 'add_key', 'request_key', 'kexec_load', 'init_module', 'mount', 'umount2', 'pivot_root', 'chroot', 'fsopen', 'open_tree', 'setns', 'open_by_handle_at'])
      expect(action(s), s).toContain(constants.errno.EPERM)
    expect(new Set(action('socket'))).toEqual(new Set([constants.errno.EAFNOSUPPORT]))
  })

  it('a network allowlist keeps only TCP over IP: UDP, raw, non-TCP stream protocols and other families are refused', () => {
    const proxy = rules.filter((r) => r.when === 'net-proxy' && r.action !== 'notify')
    expect(new Set(proxy.map((r) => r.syscall))).toEqual(new Set(['socket', 'setsockopt', 'listen', 'sendto', 'sendmsg', 'sendmmsg']))
    // IP_OPTIONS (source routing) would send the SYN for 127.0.0.1 to another first hop.
    expect(proxy.filter((r) => r.syscall === 'setsockopt').map((r) => [r.errno, r.args])).toEqual([[constants.errno.EPERM, [{ arg: 1, op: 'masked_eq', mask: '0xffffffff', value: '0x0' }, { arg: 2, op: 'masked_eq', mask: '0xffffffff', value: '0x4' }]]])
    // listen() on an unbound socket binds a port itself, past Landlock's bind rule.
    expect(proxy.filter((r) => r.syscall === 'listen').map((r) => [r.errno, r.args])).toEqual([[constants.errno.EACCES, []]])
    // connect goes to the supervisor, which checks the address Landlock's port rule cannot (notify-connect.c).
    expect(rules.filter((r) => r.when === 'net-proxy' && r.action === 'notify').map((r) => [r.syscall, r.args])).toEqual([['connect', []]])
    // TCP Fast Open connects inside the send, past Landlock's connect hook: refused with the flag, in each send call's own flags argument.
    const fastOpen = proxy.filter((r) => r.syscall.startsWith('send')).map((r) => [r.syscall, r.errno, r.args])
    expect(fastOpen).toEqual([
      ['sendto', constants.errno.EOPNOTSUPP, [{ arg: 3, op: 'masked_eq', mask: '0x20000000', value: '0x20000000' }]],
      ['sendmsg', constants.errno.EOPNOTSUPP, [{ arg: 2, op: 'masked_eq', mask: '0x20000000', value: '0x20000000' }]],
      ['sendmmsg', constants.errno.EOPNOTSUPP, [{ arg: 3, op: 'masked_eq', mask: '0x20000000', value: '0x20000000' }]],
    ])
    const has = (...args: object[]) => proxy.some((r) => JSON.stringify(r.args) === JSON.stringify(args))
    for (const family of ['0x2', '0xa']) {
      for (const type of ['0x2', '0x3', '0x5']) expect(has({ arg: 0, op: 'eq', value: family }, { arg: 1, op: 'masked_eq', mask: '0xf', value: type }), `${family}/${type}`).toBe(true)
      expect(has({ arg: 0, op: 'eq', value: family }, { arg: 2, op: 'gt', value: '0x6' })).toBe(true)
    }
    expect(has({ arg: 0, op: 'gt', value: '0xa' })).toBe(true)
    // Nothing refuses a TCP socket itself: Landlock limits where it connects.
    expect(proxy.filter((r) => r.syscall === 'socket').some((r) => r.args.some((a) => a.arg === 1 && a.value === '0x1'))).toBe(false)
  })

  it('datagram socketpairs are refused wherever host unix sockets are (their sockets take any address in sendto)', () => {
    const pair = rules.filter((r) => r.syscall === 'socketpair' && r.when === 'unix-off')
    expect(pair.map((r) => [r.errno, r.args])).toEqual([
      [constants.errno.EAFNOSUPPORT, [{ arg: 0, op: 'ne', value: '0x1' }]],
      [constants.errno.EAFNOSUPPORT, [{ arg: 0, op: 'masked_eq', mask: '0xffffffff', value: '0x1' }, { arg: 1, op: 'masked_eq', mask: '0xf', value: '0x2' }]],
      [constants.errno.EAFNOSUPPORT, [{ arg: 0, op: 'masked_eq', mask: '0xffffffff', value: '0x1' }, { arg: 1, op: 'masked_eq', mask: '0xf', value: '0x3' }]],
    ])
  })

  it('network rules apply only with network off; socketpair keeps AF_UNIX', () => {
    const net = rules.filter((r) => r.when === 'net-off').map((r) => r.syscall)
    expect(net.sort()).toEqual(['socket'])
    expect(rules.find((r) => r.syscall === 'socketpair' && r.when === 'unix-off')!.args).toEqual([{ arg: 0, op: 'ne', value: '0x1' }])
  })

  it('a family with its high 32 bits set is refused everywhere: the kernel takes an int, a 64-bit comparison would not', () => {
    for (const call of ['socket', 'socketpair']) {
      expect(rules.filter((r) => r.syscall === call && r.when === 'always').map((r) => [r.errno, r.args])).toEqual([[constants.errno.EAFNOSUPPORT, [{ arg: 0, op: 'gt', value: '0xffffffff' }]]])
    }
  })

  it('AF_UNIX sockets stay refused unless the network is fully on (network inet: every host, no host unix socket)', () => {
    const unix = rules.filter((r) => r.when === 'unix-off')
    // Compared on the low 32 bits, as the kernel reads the family and the protocol.
    expect(unix.map((r) => [r.syscall, r.args])).toEqual([
      ['socketpair', [{ arg: 0, op: 'ne', value: '0x1' }]],
      ['socket', [{ arg: 0, op: 'masked_eq', mask: '0xffffffff', value: '0x1' }]],
      ['socketpair', [{ arg: 0, op: 'masked_eq', mask: '0xffffffff', value: '0x1' }, { arg: 1, op: 'masked_eq', mask: '0xf', value: '0x2' }]],
      ['socketpair', [{ arg: 0, op: 'masked_eq', mask: '0xffffffff', value: '0x1' }, { arg: 1, op: 'masked_eq', mask: '0xf', value: '0x3' }]],
      ['socket', [{ arg: 0, op: 'masked_eq', mask: '0xffffffff', value: '0x10' }, { arg: 2, op: 'masked_eq', mask: '0xffffffff', value: '0x2' }]],
      ['socket', [{ arg: 0, op: 'masked_eq', mask: '0xffffffff', value: '0x28' }]],
    ])
  })

  it('TIOCSTI is compared on the low 32 bits of the ioctl request', () => {
    const tiocsti = rules.find((r) => r.syscall === 'ioctl' && r.args[0]?.value === '0x5412')
    expect(tiocsti?.args).toEqual([{ arg: 1, op: 'masked_eq', mask: '0xffffffff', value: '0x5412' }])
  })
})

describe("the build's parse of the rules (dist/seccomp-rules.json)", () => {
  const fresh = parseSeccompRules(text, file)

  it('is exactly a parse of the shipped file, and what loadSeccompRules returns', () => {
    const built = readFileSync(join(packageRoot, PARSED_RULES_FILE), 'utf8') // the test setup ran the build
    expect(rulesFrom(text, file, built)).toEqual(fresh)
    expect(loadSeccompRules()).toEqual(fresh)
  })

  it('is used only for the exact text it was made from: an edited rules file is parsed again', () => {
    const weakened = JSON.stringify({ parser: RULES_PARSER, source: text, rules: fresh.filter((r) => r.syscall !== 'ptrace') })
    expect(rulesFrom(text, file, weakened).some((r) => r.syscall === 'ptrace')).toBe(false) // same text: the build's parse is taken as is
    const edited = text.replace(/^ptrace .*$/m, 'ptrace errno:EACCES # edited after the build')
    const rules = rulesFrom(edited, file, weakened)
    expect(rules).toEqual(parseSeccompRules(edited, file))
    expect(rules.find((r) => r.syscall === 'ptrace')).toMatchObject({ errno: constants.errno.EACCES })
  })

  it('a missing or malformed build output falls back to parsing, and parse errors still name file:line', () => {
    expect(rulesFrom(text, file, undefined)).toEqual(fresh)
    expect(rulesFrom(text, file, '{not json')).toEqual(fresh)
    expect(rulesFrom(text, file, JSON.stringify({ parser: RULES_PARSER, source: text, rules: 'x' }))).toEqual(fresh)
    // Made by another version of the parser: parsed again.
    expect(rulesFrom(text, file, JSON.stringify({ parser: RULES_PARSER + 1, source: text, rules: [] }))).toEqual(fresh)
    expect(() => rulesFrom('ptrace errno:EPERM', 'bad.rules', JSON.stringify({ source: text, rules: fresh }))).toThrow(/reason/)
  })
})

describe('parseSeccompRules', () => {
  it('a rule without a reason → PolicyError at file:line', () => {
    const e = errorOf('# header\nbpf errno:EPERM # ok\nptrace errno:EPERM\n')
    expect(e.where).toBe('test.rules:3')
    expect(e.message).toMatch(/reason/)
  })

  it('an empty reason after # is no reason', () => {
    expect(errorOf('ptrace errno:EPERM   #   \n').where).toBe('test.rules:1')
  })

  it('parses a masked test written with or without a space before &', () => {
    const [a, b] = parseSeccompRules('unshare errno:EPERM a0 &0x10000000==0x10000000 # r\nunshare errno:EPERM a0&268435456==268435456 # r\n', 'f')
    const want = [{ arg: 0, op: 'masked_eq', mask: '0x10000000', value: '0x10000000' }]
    expect(a!.args).toEqual(want)
    expect(b!.args).toEqual(want)
  })

  it('parses comparisons, kill, when=net-off and hex/decimal values', () => {
    const [r] = parseSeccompRules('personality kill when=net-off a0>0xffffffff a1<16 a2!=0 # r\n', 'f')
    expect(r).toEqual({
      syscall: 'personality',
      action: 'kill',
      when: 'net-off',
      reason: 'r',
      args: [
        { arg: 0, op: 'gt', value: '0xffffffff' },
        { arg: 1, op: 'lt', value: '0x10' },
        { arg: 2, op: 'ne', value: '0x0' },
      ],
    })
  })

  it('parses notify (the metadata filter of Landlock mode)', () => {
    expect(parseSeccompRules('chmod notify # r\n', 'f')).toEqual([{ syscall: 'chmod', action: 'notify', when: 'always', reason: 'r', args: [] }])
  })

  it('a notify rule may pick calls by argument (the attribute ioctls, not every ioctl)', () => {
    expect(parseSeccompRules('ioctl notify a1 &0xffffffff==0x40086602 # r\n', 'f')).toEqual([
      { syscall: 'ioctl', action: 'notify', when: 'always', reason: 'r', args: [{ arg: 1, op: 'masked_eq', mask: '0xffffffff', value: '0x40086602' }] },
    ])
  })

  it.each([
    ['a notify rule with when=net-off', 'chmod notify when=net-off # r', /notify rule takes no when=/],
    ['an unknown errno name', 'bpf errno:EWHATEVER # r', /unknown action/],
    ['a missing action', 'bpf # r', /bad rule/],
    ['a bad syscall name', 'Bpf! errno:EPERM # r', /bad rule/],
    ['a masked test with !=', 'ioctl errno:EPERM a1 &0xff!=0x12 # r', /masked test must use ==/],
    ['an argument index past 5', 'ioctl errno:EPERM a6==1 # r', /bad argument test/],
    ['more than 3 argument tests', 'ioctl errno:EPERM a0==1 a1==2 a2==3 a3==4 # r', /at most 3/],
  ])('%s → PolicyError', (_, line, message) => {
    const e = errorOf(`\n${line}\n`)
    expect(e.where).toBe('test.rules:2')
    expect(e.message).toMatch(message)
  })
})
