/**
 * The server name (SNI) of a TLS ClientHello, read from the first bytes a
 * client sends through a CONNECT or SOCKS5 tunnel (RFC 8446 §4.1.2, RFC 6066
 * §3). The proxy refuses a tunnel whose SNI names another host than the one
 * it approved: on a shared front end (a CDN) the SNI, not the address,
 * picks the site — domain fronting to an unlisted host.
 *
 * Only what is needed is parsed, with a bounds check at every step; an
 * answer is `incomplete` (wait for more bytes), `not-tls`, or the name
 * (undefined when the hello carries none).
 */

export type SniResult = { kind: 'incomplete' } | { kind: 'not-tls' } | { kind: 'hello'; name: string | undefined }

/** Record header (5) + the largest TLS plaintext record (2^14). More than that is not one ClientHello record. */
export const MAX_HELLO_BYTES = 5 + 16_384

class Reader {
  constructor(
    private readonly b: Buffer,
    public at: number,
    private readonly end: number,
  ) {}
  has(n: number): boolean {
    return this.at + n <= this.end
  }
  u8(): number {
    return this.b[this.at++]!
  }
  u16(): number {
    const v = this.b.readUInt16BE(this.at)
    this.at += 2
    return v
  }
  skip(n: number): void {
    this.at += n
  }
  /** The rest of this block as text (a host name is ASCII). */
  text(): string {
    return this.b.toString('latin1', this.at, this.end)
  }
  /** A length-prefixed block (1 or 2 length bytes) as its own reader, or undefined when it overruns. */
  block(lenBytes: 1 | 2): Reader | undefined {
    if (!this.has(lenBytes)) return undefined
    const len = lenBytes === 1 ? this.u8() : this.u16()
    if (!this.has(len)) return undefined
    const r = new Reader(this.b, this.at, this.at + len)
    this.at += len
    return r
  }
}

export function parseClientHelloSni(buf: Buffer): SniResult {
  if (buf.length === 0) return { kind: 'incomplete' }
  if (buf[0] !== 0x16) return { kind: 'not-tls' } // not a handshake record
  if (buf.length < 5) return { kind: 'incomplete' }
  if (buf[1] !== 0x03) return { kind: 'not-tls' } // SSL 3 / TLS record versions only
  const recordLen = buf.readUInt16BE(3)
  if (buf.length < 5 + recordLen) return { kind: 'incomplete' }
  const r = new Reader(buf, 5, 5 + recordLen)
  if (!r.has(4) || r.u8() !== 0x01) return { kind: 'not-tls' } // ClientHello
  r.skip(3) // handshake length: the record bounds every read below
  if (!r.has(2 + 32)) return { kind: 'hello', name: undefined }
  r.skip(2 + 32) // legacy_version, random
  if (!r.block(1) || !r.block(2) || !r.block(1)) return { kind: 'hello', name: undefined } // session id, cipher suites, compression
  const exts = r.block(2)
  while (exts?.has(4)) {
    const type = exts.u16()
    const data = exts.block(2)
    if (!data) break
    if (type === 0) return { kind: 'hello', name: serverName(data) }
  }
  return { kind: 'hello', name: undefined }
}

function serverName(data: Reader): string | undefined {
  const list = data.block(2)
  while (list?.has(3)) {
    const type = list.u8()
    const name = list.block(2)
    if (!name) return undefined
    if (type === 0) return name.text()
  }
  return undefined
}
