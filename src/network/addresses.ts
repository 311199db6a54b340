/**
 * Addresses a proxied name must not resolve to unless an allow entry names
 * the address itself: the host's own services (loopback), the local
 * network (RFC 1918, ULA, CGNAT), link-local — where clouds serve instance
 * metadata and credentials (169.254.169.254, fd00:ec2::254) — and addresses
 * that are not one host (unspecified, multicast, broadcast).
 */
import { builtin } from '../native/builtin.js'

const net = builtin<typeof import('node:net')>('node:net')

const SPECIAL: readonly [string, number, 'ipv4' | 'ipv6', string][] = [
  ['0.0.0.0', 8, 'ipv4', 'unspecified ("this network")'],
  ['127.0.0.0', 8, 'ipv4', 'loopback'],
  ['10.0.0.0', 8, 'ipv4', 'private (RFC 1918)'],
  ['172.16.0.0', 12, 'ipv4', 'private (RFC 1918)'],
  ['192.168.0.0', 16, 'ipv4', 'private (RFC 1918)'],
  ['100.64.0.0', 10, 'ipv4', 'shared address space (CGNAT)'],
  ['169.254.0.0', 16, 'ipv4', 'link-local (cloud metadata)'],
  ['192.0.0.0', 24, 'ipv4', 'IETF protocol assignments'],
  ['198.18.0.0', 15, 'ipv4', 'benchmarking'],
  ['224.0.0.0', 4, 'ipv4', 'multicast'],
  ['240.0.0.0', 4, 'ipv4', 'reserved / broadcast'],
  ['::', 128, 'ipv6', 'unspecified'],
  ['::1', 128, 'ipv6', 'loopback'],
  ['fc00::', 7, 'ipv6', 'unique local (private)'],
  ['fe80::', 10, 'ipv6', 'link-local'],
  ['ff00::', 8, 'ipv6', 'multicast'],
  ['64:ff9b:1::', 48, 'ipv6', 'local-use NAT64'],
]

/** The special ranges as block lists, made on first use (node:net loads then). */
let lists: { b: import('node:net').BlockList; family: string; what: string }[] | undefined
const specialLists = () =>
  (lists ??= SPECIAL.map(([subnet, prefix, family, what]) => {
    const b = new (net().BlockList)()
    b.addSubnet(subnet, prefix, family)
    return { b, family, what }
  }))

/** An IPv4 address written as IPv6 (`::ffff:127.0.0.1`) is that IPv4 address. */
function unmapped(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (m) return { address: m[1]!, family: 'ipv4' }
  return { address, family: net().isIP(address) === 6 ? 'ipv6' : 'ipv4' }
}

/** What makes this address special (`loopback`, `link-local (cloud metadata)`, …), or undefined for a public one. */
export function specialAddress(address: string): string | undefined {
  const a = unmapped(address)
  if (net().isIP(a.address) === 0) return 'not an IP address'
  return specialLists().find((l) => l.family === a.family && l.b.check(a.address, a.family))?.what
}
