/**
 * The hand-over of an approved tunnel from Node's sockets to the addon's
 * native relay (Linux, native/linux/relay.c: splice(2) through a pipe per
 * direction on one relay thread), so that the bytes of a download no longer
 * cross into JavaScript on the caller's main thread. tunnel.ts decides when;
 * this file does the moves that keep every byte in order:
 *
 * 1. Node stops reading both sockets (paused, no 'data' listener) and the
 *    bytes it already wrote are flushed to the kernel (a zero-length
 *    write's callback runs after every write before it completed) — else
 *    the native relay's first bytes to a socket could overtake them.
 * 2. Then, in one synchronous step (libuv reads only between event-loop
 *    turns, so nothing can arrive in Node meanwhile): every byte Node read
 *    but did not deliver is taken from the readable buffers as the prefix of
 *    its direction, the addon duplicates both descriptors (close-on-exec),
 *    and Node's sockets are destroyed. Closing Node's descriptor does not
 *    close the connection — the addon's duplicate holds it open (close(2):
 *    a socket is released with its last descriptor) — and libuv takes the
 *    descriptor out of its epoll set before closing it (uv__io_close in
 *    libuv's src/unix/core.c calls uv__platform_invalidate_fd, which does
 *    EPOLL_CTL_DEL in src/unix/linux.c), so Node's loop gets no events for a
 *    connection it no longer owns.
 *
 * Anything unusual keeps the JavaScript relay: another OS, an addon without
 * `relay`, a socket without a numeric descriptor (`_handle.fd` is Node's
 * internal), a socket already ending, or the addon refusing (its tunnel
 * bound, a prefix over its limit, out of descriptors).
 */
import type { Socket } from 'node:net'
import type { NativeBinding } from '../../native/binding.js'
import { loadNative } from '../../native/load.js'

/** Emitted on the client socket, just before it is destroyed, with the tunnel that carries on without it. */
export const HANDED_OFF = 'cordon:handed-off'

/** How a native tunnel ended: bytes delivered each way, and the errno that ended it (0: both sides ended). */
export interface RelayRecord {
  toUpstream: number
  toClient: number
  errno: number
}

export interface NativeTunnel {
  /** Cut the tunnel: both connections are reset. */
  destroy(): void
  /** Settles when the tunnel is over (undefined when it was cut from here). */
  readonly done: Promise<RelayRecord | undefined>
}

export type RelayBinding = Pick<NativeBinding, 'FdReader'> & { relay: NonNullable<NativeBinding['relay']> }

/** Bytes of the record native/linux/relay.h writes (CORDON_RELAY_RECORD_BYTES). */
const RECORD_BYTES = 20
const EMPTY = Buffer.alloc(0)

let binding: RelayBinding | null | undefined

/** The addon's relay, or null where there is none (then every tunnel stays on the JS relay). */
export function nativeRelay(): RelayBinding | null {
  if (binding !== undefined) return binding
  binding = null
  if (process.platform !== 'linux') return binding
  try {
    const native = loadNative().binding
    if (typeof native.relay === 'function') binding = native as RelayBinding
  } catch {
    /* no usable addon (not built, another version): the JS relay */
  }
  return binding
}

/** The socket's descriptor: Node's internal `_handle.fd`, used only when it is a number ≥ 0. */
function fdOf(socket: Socket): number | undefined {
  const fd = (socket as unknown as { _handle?: { fd?: unknown } | null })._handle?.fd
  return typeof fd === 'number' && Number.isInteger(fd) && fd >= 0 ? fd : undefined
}

/** Both sockets open both ways, each with a descriptor: only then is a hand-over exact. */
export function canHandOff(client: Socket, upstream: Socket): boolean {
  return [client, upstream].every((s) => !s.destroyed && !s.readableEnded && !s.writableEnded && fdOf(s) !== undefined)
}

/** Resolves once every byte written to `socket` so far is in the kernel. */
export function flushed(socket: Socket): Promise<void> {
  return new Promise((resolve, reject) => socket.write(EMPTY, (err) => (err ? reject(err) : resolve())))
}

/** Every byte Node read from a paused socket and has not delivered, in order. */
function takeBuffered(socket: Socket): Buffer {
  const parts: Buffer[] = []
  for (let b = socket.read() as Buffer | null; b !== null; b = socket.read() as Buffer | null) parts.push(b)
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts)
}

function parseRecord(bytes: Buffer): RelayRecord | undefined {
  if (bytes.length < RECORD_BYTES) return undefined
  return { toUpstream: Number(bytes.readBigUInt64LE(0)), toClient: Number(bytes.readBigUInt64LE(8)), errno: bytes.readUInt32LE(16) }
}

/**
 * The end of a native tunnel, read on Node's loop with the addon's FdReader
 * (a uv_poll on the pipe; lighter than a net.Socket per tunnel). Closing the
 * reader closes the pipe's read end, which the relay thread sees as EPOLLERR
 * on the write end and cuts the tunnel.
 */
function watch(native: RelayBinding, fd: number): NativeTunnel {
  const chunks: Buffer[] = []
  let settle!: (r: RelayRecord | undefined) => void
  const done = new Promise<RelayRecord | undefined>((r) => (settle = r))
  const reader = new native.FdReader(fd, (chunk) => (chunk ? void chunks.push(chunk) : settle(parseRecord(Buffer.concat(chunks)))))
  return {
    done,
    destroy: () => {
      reader.close()
      settle(undefined)
    },
  }
}

/**
 * Step 2 above, for paused and flushed sockets: the tunnel now relayed
 * natively (Node's sockets destroyed), or the bytes taken when the addon
 * refused (the sockets untouched otherwise; the caller relays them in JS,
 * those bytes first).
 */
export function handOff(native: RelayBinding, client: Socket, upstream: Socket, held: Buffer, detach: () => void): NativeTunnel | { toUpstream: Buffer; toClient: Buffer } {
  const toUpstream = Buffer.concat([held, takeBuffered(client)])
  const toClient = takeBuffered(upstream)
  let fd: number
  try {
    fd = native.relay(fdOf(client)!, fdOf(upstream)!, toUpstream, toClient)
  } catch {
    return { toUpstream, toClient }
  }
  // The relay thread owns the tunnel from here (it may already be sending
  // the prefixes): no way back to the JS relay. A reader that cannot start
  // closes the descriptor, which cuts the tunnel; Node's sockets go either way.
  let tunnel: NativeTunnel
  try {
    tunnel = watch(native, fd)
  } catch {
    tunnel = { destroy: () => {}, done: Promise.resolve(undefined) }
  }
  detach()
  client.emit(HANDED_OFF, tunnel)
  client.destroy()
  upstream.destroy()
  return tunnel
}
