/**
 * How long a client of the proxy may take over its own part. A connection
 * gets REQUEST_DEADLINE_MS, then it is dropped:
 *  - from accept until its request is complete (the HTTP request line and
 *    headers, or the SOCKS5 greeting, credential and request), and again
 *    after the last answer on a kept-alive plain-HTTP connection;
 *  - after a refusal (a 4xx or a SOCKS5 failure reply), to read the answer
 *    and close: a client that leaves its end open after a refusal would
 *    otherwise keep the proxy's socket, half-closed, for good (red team:
 *    1024 CONNECTs without the credential held every slot).
 * Without it a sandboxed command that connects and says nothing, or sends a
 * byte now and then (slowloris), or ignores refusals, holds one of the
 * proxy's MAX_PROXY_CONNECTIONS slots, and one of the caller's descriptors,
 * until its sandbox closes.
 *
 * Never timed: the gate's decision (an approver may take minutes), an
 * answer being relayed, and a connection that asked for a tunnel — from its
 * CONNECT or SOCKS5 request on, its bytes are the tunnel's (a GET pipelined
 * before the CONNECT, answered later, must not start the wait again).
 */
import type { Socket } from 'node:net'

/** Generous for a request of a few hundred bytes, even on a loaded machine. */
export const REQUEST_DEADLINE_MS = 10_000

const pending = new WeakMap<Socket, ReturnType<typeof setTimeout>>()
/** Sockets whose close already ends their wait (one listener each, however often the wait restarts). */
const watched = new WeakSet<Socket>()
/** Connections that asked for a tunnel: no request of theirs is waited for again. */
const tunnels = new WeakSet<Socket>()

function arm(socket: Socket): void {
  stop(socket)
  if (socket.destroyed) return
  const timer = setTimeout(() => socket.destroy(), REQUEST_DEADLINE_MS)
  // A connection's deadline never keeps the caller's process alive.
  timer.unref?.()
  pending.set(socket, timer)
  if (watched.has(socket)) return
  watched.add(socket)
  socket.once('close', () => stop(socket))
}

function stop(socket: Socket): void {
  const timer = pending.get(socket)
  if (timer === undefined) return
  clearTimeout(timer)
  pending.delete(socket)
}

/** Start (or restart) the wait for the client's next request; not for a connection that asked for a tunnel. */
export function awaitRequest(socket: Socket): void {
  if (!tunnels.has(socket)) arm(socket)
}

/** A plain HTTP request is complete: the wait is over while it is answered. */
export function requestArrived(socket: Socket): void {
  stop(socket)
}

/** A CONNECT or SOCKS5 request is complete: the wait is over, and the connection is a tunnel's from now on. */
export function tunnelAsked(socket: Socket): void {
  tunnels.add(socket)
  stop(socket)
}

/**
 * The proxy refused and ended its side: the client has the deadline to read
 * the answer and close (a client that closes is let go at once, deadline or
 * not: Node still reads a paused socket up to its high-water mark, and so
 * sees the end of file).
 */
export function awaitClose(socket: Socket): void {
  arm(socket)
}
