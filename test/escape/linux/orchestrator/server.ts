/** A local HTTP server on 127.0.0.1 for the network cases (started by the test process, outside any sandbox). */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export const BODY = 'cordon-orchestrator-ok'

export async function startServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((_req, res) => res.end(BODY))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((resolve) => server.close(() => resolve())) }
}

/** A fetch the sandboxed command runs with node (always present where the tests run). */
export function fetchCommand(url: string): string[] {
  return [process.execPath, '-e', `fetch(${JSON.stringify(url)}).then(r=>r.text()).then(t=>process.stdout.write(t),e=>{console.error(e.cause??e);process.exit(1)})`]
}
