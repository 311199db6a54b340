// For information (no target): the whole namespace-mode path of a download —
// curl inside a namespace-mode sandbox → the launcher's forwarder
// (127.0.0.1:PORT → the proxy's unix socket) → the proxy (its native relay
// where the addon has one) → the origin — against the same curl run
// unconfined straight to the origin. Both download the 100 MB of
// bench/network.mjs's origin (on its worker thread); curl's own
// speed_download, median of three interleaved runs. Returns null (the
// reason on stderr) where namespace mode or curl is missing.
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { median } from './lib.mjs'

const MB = 1024 * 1024
const CURL = '/usr/bin/curl'
// -p: a CONNECT tunnel through the HTTP proxy the sandbox's environment names (as for HTTPS).
const curlArgs = (url) => ['-sS', '-p', '-o', '/dev/null', '-w', '%{speed_download} %{size_download}', url]

function parse(out) {
  const [speed, size] = out.trim().split(' ').map(Number)
  if (size !== 100 * MB) throw new Error(`bench: short download (${size} bytes)`)
  return speed / MB
}

function direct(url) {
  return new Promise((resolve, reject) => execFile(CURL, curlArgs(url), { env: {} }, (err, out) => (err ? reject(err) : resolve(parse(out)))))
}

export async function benchNamespacePath(originPort) {
  if (!existsSync(CURL)) {
    console.error('bench: namespace-mode path skipped: curl is not installed')
    return null
  }
  const { createSandbox } = await import('../dist/index.js')
  const cwd = mkdtempSync(join(tmpdir(), 'cordon-bench-netns-'))
  const sb = createSandbox({
    cwd,
    mode: 'namespaces',
    profile: { network: { allow: ['origin.test', '127.0.0.2'] } },
    networkLookup: (host, _o, cb) => (host === 'origin.test' ? cb(null, [{ address: '127.0.0.2', family: 4 }]) : cb(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' }), [])),
  })
  try {
    const viaSandbox = async () => {
      const r = await sb.run([CURL, ...curlArgs(`http://origin.test:${originPort}/big`)])
      if (r.enforcement.mode !== 'namespaces') throw new Error(`not namespace mode: ${r.enforcement.modeReason}`)
      if (r.exitCode !== 0) throw new Error(`curl in the sandbox failed: ${r.stderr}`)
      return parse(r.stdout)
    }
    const d = []
    const s = []
    for (let i = 0; i < 3; i++) {
      d.push(await direct(`http://127.0.0.2:${originPort}/big`))
      s.push(await viaSandbox())
    }
    return { directMBs: median(d), sandboxMBs: median(s) }
  } catch (e) {
    console.error(`bench: namespace-mode path skipped: ${e instanceof Error ? e.message : e}`)
    return null
  } finally {
    await sb.close?.()
    rmSync(cwd, { recursive: true, force: true })
  }
}

export function printNamespacePath(r) {
  if (!r) return
  console.log(`  namespace mode, curl in the sandbox → forwarder → proxy (for information): direct ${r.directMBs.toFixed(0)} MB/s, via the sandbox ${r.sandboxMBs.toFixed(0)} MB/s (${((r.sandboxMBs / r.directMBs) * 100).toFixed(0)} %)`)
}
