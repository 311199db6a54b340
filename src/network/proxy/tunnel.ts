/**
 * A TCP tunnel from a client (after CONNECT or a SOCKS5 request) to the
 * address the gate vetted. The server's bytes flow to the client at once
 * (protocols where the server speaks first work); the client's first bytes
 * are held until they show whether they are a TLS ClientHello, and a hello
 * naming another host than the approved one closes the tunnel before any
 * of it reaches the server.
 */
import { connect, type Socket } from 'node:net'
import type { ProxyRequestRecord } from '../../platform/enforcement.js'
import { canonicalHost } from '../host-pattern.js'
import { MAX_HELLO_BYTES, parseClientHelloSni } from './sni.js'

export interface TunnelTarget {
  host: string
  port: number
  address: string
  record: ProxyRequestRecord
}

export interface TunnelReplies {
  /** The upstream connection is open: tell the client (HTTP 200, SOCKS5 success). */
  ok(): void
  /** It could not be opened: tell the client why and close. */
  fail(reason: string): void
}

/**
 * Relay `from` into `to`, pausing only when `to` holds more than RELAY_BUFFER
 * unsent bytes. (stream.pipe() pauses at the 16 KiB write mark, below one
 * 64 KiB socket read: a pause and a resume per chunk, a third of the
 * throughput on a loaded machine.) End follows end.
 */
const RELAY_BUFFER = 1024 * 1024

function relay(from: Socket, to: Socket): void {
  from.on('data', (chunk: Buffer) => {
    to.write(chunk)
    if (to.writableLength > RELAY_BUFFER) {
      from.pause()
      to.once('drain', () => from.resume())
    }
  })
  from.once('end', () => to.end())
  from.resume()
}

/** Mark an allowed request refused after the fact (an SNI check), for the report. */
function refuseLate(record: ProxyRequestRecord, reason: string): void {
  record.decision = 'denied'
  record.source = 'proxy'
  record.reason = reason
  delete record.address
}

export function openTunnel(client: Socket, head: Buffer, target: TunnelTarget, replies: TunnelReplies): void {
  const upstream = connect({ host: target.address, port: target.port })
  upstream.setNoDelay(true)
  client.setNoDelay(true)
  const closeBoth = () => {
    client.destroy()
    upstream.destroy()
  }
  client.on('error', closeBoth)
  client.on('close', () => upstream.destroy())
  upstream.once('error', (err: NodeJS.ErrnoException) => {
    if (upstream.connecting) replies.fail(`cannot connect to ${target.host}:${target.port} (${err.code ?? err.message})`)
    closeBoth()
  })
  upstream.once('connect', () => {
    upstream.on('error', closeBoth)
    upstream.on('close', () => client.end())
    replies.ok()
    relay(upstream, client)
    holdFirstBytes(client, head, target, upstream, closeBoth)
  })
}

/** Read the client until its first bytes are judged, then relay everything. */
function holdFirstBytes(client: Socket, head: Buffer, target: TunnelTarget, upstream: Socket, closeBoth: () => void): void {
  let held = head
  const judge = (): boolean => {
    const sni = parseClientHelloSni(held)
    if (sni.kind === 'incomplete' && held.length < MAX_HELLO_BYTES) return false
    if (sni.kind === 'incomplete' || (sni.kind === 'hello' && sni.name !== undefined && canonicalHost(sni.name) !== target.host)) {
      const what = sni.kind === 'incomplete' ? 'an oversized TLS ClientHello' : `TLS server name ${JSON.stringify(sni.kind === 'hello' ? sni.name : '')}`
      refuseLate(target.record, `${what} does not match the approved host ${target.host}`)
      closeBoth()
      return true
    }
    client.off('data', onData)
    upstream.write(held)
    relay(client, upstream)
    return true
  }
  const onData = (chunk: Buffer) => {
    held = held.length ? Buffer.concat([held, chunk]) : chunk
    judge()
  }
  if (held.length > 0 && judge()) return
  client.on('data', onData)
  client.resume() // the front end paused it while the gate decided
}
