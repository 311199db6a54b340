/**
 * Run the launcher once on a plan, as the native tests drive it: the plan
 * on fd 3, the status lines on fd 4, an empty environment; resolves with
 * the command's trimmed stdout and the parsed status records.
 */
import { spawn } from 'node:child_process'
import type { Readable, Writable } from 'node:stream'
import { loadNative } from '../../src/native/load.js'

/** Everything a stream carries until it closes, as text. */
export function collectText(stream: Readable): Promise<string> {
  return new Promise((resolve) => {
    let text = ''
    stream.on('data', (d: Buffer) => (text += d.toString()))
    stream.on('close', () => resolve(text))
  })
}

/** The launcher (under `wrap`, if given: a program that execs its arguments) on `plan`. */
export async function runLauncher(plan: object, wrap: string[] = []): Promise<{ stdout: string; status: Record<string, unknown>[] }> {
  const argv = [...wrap, loadNative().launcherPath, '--plan-fd', '3', '--status-fd', '4']
  const child = spawn(argv[0]!, argv.slice(1), { env: {}, stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'] })
  const planPipe = child.stdio[3] as Writable
  planPipe.on('error', () => {})
  planPipe.end(JSON.stringify(plan))
  const [stdout, status] = await Promise.all([collectText(child.stdout!), collectText(child.stdio[4] as Readable)])
  return { stdout: stdout.trim(), status: status.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) }
}
