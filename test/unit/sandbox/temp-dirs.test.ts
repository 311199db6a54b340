/**
 * Private temp dirs (`$TMPDIR/cordon-XXXXXX`): a sandbox never closed loses
 * its dir at process exit; a crashed owner's dir is swept by the next
 * process that makes one — never a live owner's, never one without a
 * marker — and the removal follows no symlink a command planted. Each
 * process here gets its own TMPDIR, so nothing outside this test's
 * directory is swept.
 */
import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { distIndex } from '../../helpers/paths.js'

const root = mkdtempSync(join(tmpdir(), 'cordon-tt-'))
afterAll(() => {
  spawnSync('chmod', ['-R', 'u+rwx', root])
  rmSync(root, { recursive: true, force: true })
})

const index = JSON.stringify(pathToFileURL(distIndex).href)
/** Make a sandbox, print its $TMPDIR as the command sees it, then `then` (JS run in the child). */
const script = (ws: string, then = '') => `
  const { createSandbox } = await import(${index})
  const sb = createSandbox({ cwd: ${JSON.stringify(ws)}, mode: 'landlock' })
  const r = await sb.run(['sh', '-c', 'echo "$TMPDIR"'])
  console.log(r.stdout.trim())
  ${then}`

function child(tmp: string, code: string) {
  const c = spawn(process.execPath, ['--input-type=module', '-e', code], { env: { ...process.env, TMPDIR: tmp }, stdio: ['pipe', 'pipe', 'inherit'] })
  let out = ''
  c.stdout.on('data', (d: Buffer) => (out += d))
  const line = new Promise<string>((resolve) => c.stdout.on('data', () => out.includes('\n') && resolve(out.split('\n')[0]!)))
  const exit = new Promise<number | null>((resolve) => c.on('close', (code) => resolve(code)))
  return { line, exit, child: c }
}

const fresh = (label: string) => {
  const d = mkdtempSync(join(root, `${label}-`))
  mkdirSync(join(d, 'tmp'))
  mkdirSync(join(d, 'ws'))
  return { tmp: join(d, 'tmp'), ws: join(d, 'ws'), base: d }
}

/** A marker as this machine's cordon writes it, for an owner that never existed in our pid namespace. */
function deadMarker(): string {
  const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()
  return `cordon-owner 1\nboot ${boot}\npidns ${readlinkSync('/proc/self/ns/pid')}\npid 2147483646\nstart 1\n`
}

describe('private temp dirs', () => {
  it('a sandbox that is never closed: its temp dir is gone when the process exits', async () => {
    const t = fresh('exit')
    const c = child(t.tmp, script(t.ws))
    const dir = await c.line
    expect(dir.startsWith(`${t.tmp}/cordon-`)).toBe(true)
    expect(await c.exit).toBe(0)
    expect(existsSync(dir)).toBe(false)
  })

  it("a crashed owner's dir is swept at the next start, through planted symlinks without following them; live and unmarked dirs stay", async () => {
    const t = fresh('crash')
    const crashed = child(t.tmp, script(t.ws, "process.kill(process.pid, 'SIGKILL')"))
    const dead = await crashed.line
    await crashed.exit
    expect(existsSync(join(dead, '.cordon-owner'))).toBe(true)
    // What a command could have left there: links out of it, directories it locked.
    const outside = join(t.base, 'outside')
    mkdirSync(outside)
    writeFileSync(join(outside, 'precious'), 'keep me')
    symlinkSync(outside, join(dead, 'dirlink'))
    symlinkSync(join(outside, 'precious'), join(dead, 'filelink'))
    mkdirSync(join(dead, 'locked', 'deep'), { recursive: true })
    writeFileSync(join(dead, 'locked', 'deep', 'f'), '')
    symlinkSync(outside, join(dead, 'locked', 'deep', 'link'))
    chmodSync(join(dead, 'locked', 'deep'), 0o500)
    chmodSync(join(dead, 'locked'), 0o000)
    // Not to be touched: a live owner's dir, one whose marker is not written yet, one that is not ours by name.
    const live = child(t.tmp, script(t.ws, "await new Promise((r) => process.stdin.once('data', r))"))
    const liveDir = await live.line
    const unmarked = join(t.tmp, 'cordon-AbC123')
    mkdirSync(unmarked)
    const otherName = join(t.tmp, 'cordon-other-dir')
    mkdirSync(otherName)
    writeFileSync(join(otherName, '.cordon-owner'), deadMarker())
    const next = child(t.tmp, script(t.ws))
    await next.line
    expect(await next.exit).toBe(0)
    expect(existsSync(dead)).toBe(false)
    expect(readFileSync(join(outside, 'precious'), 'utf8')).toBe('keep me')
    expect(existsSync(liveDir)).toBe(true)
    expect(existsSync(unmarked)).toBe(true)
    expect(existsSync(otherName)).toBe(true)
    live.child.stdin.end('done\n')
    await live.exit
    expect(existsSync(liveDir)).toBe(false)
  })

  it('the sweep runs once per process, not per sandbox or run', async () => {
    const t = fresh('once')
    const stale = join(t.tmp, 'cordon-Stale1')
    const code = `
      const { createSandbox } = await import(${index})
      const { mkdirSync, writeFileSync } = await import('node:fs')
      createSandbox({ cwd: ${JSON.stringify(t.ws)}, mode: 'landlock' }).close()
      mkdirSync(${JSON.stringify(stale)})
      writeFileSync(${JSON.stringify(join(stale, '.cordon-owner'))}, ${JSON.stringify(deadMarker())})
      const sb = createSandbox({ cwd: ${JSON.stringify(t.ws)}, mode: 'landlock' })
      await sb.run(['/bin/true'])
      sb.close()
      console.log('ok')`
    const c = child(t.tmp, code)
    expect(await c.line).toBe('ok')
    await c.exit
    expect(existsSync(stale)).toBe(true) // made after this process swept
    const again = child(t.tmp, script(t.ws))
    await again.line
    await again.exit
    expect(existsSync(stale)).toBe(false) // the next process sweeps it
  })
})
