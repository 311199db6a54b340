/**
 * A TCP tunnel from a client (after CONNECT or a SOCKS5 request) to the
 * address the gate vetted. The server's bytes flow to the client at once
 * (protocols where the server speaks first work); the client's first bytes
 * are held until they show whether they are a TLS ClientHello, and a hello
 * naming another host than the approved one closes the tunnel before any
 * of it reaches the server. Once they are judged, the tunnel moves to the
 * addon's native relay where there is one (native-relay.ts); the relay
 * below stays for the rest.
 *
 * Both sockets are half-open capable (allowHalfOpen): a client that ends its
 * side still gets the server's answer — end follows end, one direction at a
 * time, as in the native relay.
 */
import { connect, type Socket } from 'node:net'
import type { ProxyRequestRecord } from '../../platform/enforcement.js'
import { canonicalHost } from '../host-pattern.js'
import { canHandOff, flushed, handOff, nativeRelay, type RelayBinding } from './native-relay.js'
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

/** Start relaying; the function returned stops it, leaving `from` paused (a pending 'drain' no longer resumes it). */
function relay(from: Socket, to: Socket): () => void {
  let stopped = false
  const onData = (chunk: Buffer) => {
    to.write(chunk)
    if (to.writableLength > RELAY_BUFFER) {
      from.pause()
      to.once('drain', () => stopped || from.resume())
    }
  }
  const onEnd = () => to.end()
  from.on('data', onData)
  from.once('end', onEnd)
  from.resume()
  return () => {
    stopped = true
    from.off('data', onData)
    from.off('end', onEnd)
    from.pause()
  }
}

/** Mark an allowed request refused after the fact (an SNI check), for the report. */
function refuseLate(record: ProxyRequestRecord, reason: string): void {
  record.decision = 'denied'
  record.source = 'proxy'
  record.reason = reason
  delete record.address
}

export function openTunnel(client: Socket, head: Buffer, target: TunnelTarget, replies: TunnelReplies): void {
  const upstream = connect({ host: target.address, port: target.port, allowHalfOpen: true })
  upstream.setNoDelay(true)
  client.setNoDelay(true)
  client.allowHalfOpen = true // read at each 'end' (node:stream): not given at accept time, which served the proxy's own replies
  const closeBoth = () => {
    client.destroy()
    upstream.destroy()
  }
  const onClientClose = () => upstream.destroy()
  const onUpstreamClose = () => client.end()
  client.on('error', closeBoth)
  client.on('close', onClientClose)
  upstream.once('error', (err: NodeJS.ErrnoException) => {
    if (upstream.connecting) replies.fail(`cannot connect to ${target.host}:${target.port} (${err.code ?? err.message})`)
    closeBoth()
  })
  upstream.once('connect', () => {
    upstream.on('error', closeBoth)
    upstream.on('close', onUpstreamClose)
    replies.ok()
    const stopDown = relay(upstream, client)
    holdFirstBytes(client, head, target, closeBoth, (held) => {
      const tunnel = { client, upstream, held, stopDown, closeBoth }
      const native = nativeRelay()
      if (!native || !canHandOff(client, upstream)) return relayUp(tunnel)
      // The hand-over replaces these: a destroyed socket must not cut the other.
      const detach = () => {
        client.off('close', onClientClose)
        upstream.off('close', onUpstreamClose)
      }
      moveToNative(tunnel, native, detach)
    })
  })
}

interface Tunnel {
  client: Socket
  upstream: Socket
  /** The client's judged first bytes, not yet sent upstream. */
  held: Buffer
  stopDown: () => void
  closeBoth: () => void
}

/** The JS relay for the client's side too: the held bytes first. */
function relayUp(t: Tunnel): void {
  t.upstream.write(t.held)
  relay(t.client, t.upstream)
}

/**
 * Stop Node reading, let its writes reach the kernel, then hand the sockets
 * to the native relay (native-relay.ts says why in this order). When the
 * addon refuses, the JS relay carries on with the bytes taken.
 */
function moveToNative(t: Tunnel, native: RelayBinding, detach: () => void): void {
  t.stopDown()
  t.client.pause()
  Promise.all([flushed(t.client), flushed(t.upstream)]).then(() => {
    if (t.client.destroyed || t.upstream.destroyed) return // an error closed both meanwhile
    const r = handOff(native, t.client, t.upstream, t.held, detach)
    if (!('toUpstream' in r)) return
    t.client.write(r.toClient)
    relay(t.upstream, t.client)
    relayUp({ ...t, held: r.toUpstream })
  }, t.closeBoth)
}

/** Read the client until its first bytes are judged, then pass them on. */
function holdFirstBytes(client: Socket, head: Buffer, target: TunnelTarget, closeBoth: () => void, proceed: (held: Buffer) => void): void {
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
    proceed(held)
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
