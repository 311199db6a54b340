/** Ports for servers the tests start on loopback. */
import { readFileSync } from 'node:fs'
import type { Server } from 'node:net'

/**
 * Listen below the kernel's ephemeral range (ip_local_port_range), where
 * the proxy's own port (bound to port 0) never is. Landlock (ABI <= 7) tells
 * TCP ports apart, not hosts: were the server's port the proxy's, a direct
 * connect to it would be let through — the gap the report names — and a
 * bypass test would test nothing.
 */
export async function listenBelowEphemeral(server: Server, host: string): Promise<number> {
  const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'latin1').trim().split(/\s+/)[0])
  for (let i = 0; i < 50; i++) {
    const port = 10_000 + Math.floor(Math.random() * Math.max(1, low - 10_000))
    const ok = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false))
      server.listen(port, host, () => resolve(true))
    })
    if (ok) return port
  }
  throw new Error(`no free port between 10000 and ${low} on ${host}`)
}
