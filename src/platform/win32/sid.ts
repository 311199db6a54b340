/**
 * The per-sandbox capability SID: the restricting SID of the command's
 * write-restricted token and the trustee of every ACE a launch adds.
 *
 * The shape of a capability SID (S-1-15-3-1024-, then eight 32-bit
 * sub-authorities), with the sub-authorities random (256 bits from the
 * OS's CSPRNG) rather than derived from a name: no other token, AppContainer
 * or ACL on the machine names it, so an ACE left behind by a crashed launch
 * grants or denies nobody anything, and no two sandboxes share one.
 */
import { builtin } from '../../native/builtin.js'

const crypto = builtin<typeof import('node:crypto')>('node:crypto')

const CAPABILITY_PREFIX = 'S-1-15-3-1024'

export function newSandboxSid(random: (n: number) => Buffer = (n) => crypto().randomBytes(n)): string {
  const bytes = random(32)
  const parts: number[] = []
  for (let i = 0; i < 8; i++) parts.push(bytes.readUInt32LE(i * 4))
  return [CAPABILITY_PREFIX, ...parts].join('-')
}

/** A SID this module made (the launcher refuses anything else too: ConvertStringSidToSidW). */
export function isSandboxSid(sid: string): boolean {
  return /^S-1-15-3-1024(-\d{1,10}){8}$/.test(sid) && sid.split('-').slice(5).every((p) => Number(p) <= 0xffffffff)
}
