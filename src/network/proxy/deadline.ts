/**
 * How long a client of the proxy may take to say what it wants. From
 * accept (and again after each plain-HTTP response on a kept-alive
 * connection) until its request is complete — the HTTP request line and
 * headers, or the SOCKS5 greeting, credential and request — a connection
 * gets REQUEST_DEADLINE_MS; then it is dropped. Without it a sandboxed
 * command that connects and says nothing, or sends a byte now and then
 * (slowloris), holds one of the proxy's MAX_PROXY_CONNECTIONS slots, and
 * one of the caller's descriptors, until its sandbox closes.
 *
 * Only the client's own part is timed: the gate's decision (an approver may
 * take minutes) and an open tunnel or a response being relayed are not.
 */
import type { Socket } from 'node:net'

/** Generous for a request of a few hundred bytes, even on a loaded machine. */
export const REQUEST_DEADLINE_MS = 10_000

const pending = new WeakMap<Socket, ReturnType<typeof setTimeout>>()
/** Sockets whose close already ends their wait (one listener each, however often the wait restarts). */
const watched = new WeakSet<Socket>()

/** Start (or restart) the wait for the client's next request. */
export function awaitRequest(socket: Socket): void {
  requestArrived(socket)
  if (socket.destroyed) return
  const timer = setTimeout(() => socket.destroy(), REQUEST_DEADLINE_MS)
  // A connection's deadline never keeps the caller's process alive.
  timer.unref?.()
  pending.set(socket, timer)
  if (watched.has(socket)) return
  watched.add(socket)
  socket.once('close', () => requestArrived(socket))
}

/** The request is complete: the wait is over. */
export function requestArrived(socket: Socket): void {
  const timer = pending.get(socket)
  if (timer === undefined) return
  clearTimeout(timer)
  pending.delete(socket)
}
