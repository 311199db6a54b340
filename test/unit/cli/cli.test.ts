/**
 * The `cordon` binary end to end: defaults, exit statuses (the command's own,
 * 128+N for a signal, 125 for a setup failure, 127 not found), --json, doctor
 * and explain. Spawned as a user would run it. Usage errors, --help and JSON
 * errors: usage.test.ts.
 */
import { spawnSync } from 'node:child_process'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { bin, cordon as cordonIn, scratchDir, type CliResult } from './cordon-bin.js'

const work = scratchDir('cli-')
afterAll(() => rmSync(work, { recursive: true, force: true }))

const cordon = (args: string[]): Promise<CliResult> => cordonIn(args, work, { ...process.env, GITHUB_TOKEN: 'ghp_cli_secret' })

describe('cordon run', () => {
  it('defaults: workspace-write on the cwd, network off, secrets out of the env', async () => {
    const r = await cordon(['run', '--json', '--', 'sh', '-c', 'echo hi > here.txt && cat here.txt; echo x > /etc/cordon-cli-test; echo "token=${GITHUB_TOKEN:-none}"'])
    const out = JSON.parse(r.stdout) as { exitCode: number; stdout: string; stderr: string; enforcement: { network: string; filesystem: { writeRoots: string[] } } }
    expect(out.stdout).toContain('hi\n')
    expect(out.stdout).toContain('token=none')
    expect(out.stderr).toMatch(/\/etc\/cordon-cli-test: (Permission denied|Read-only file system)/)
    expect(out.enforcement.network).toBe('off')
    expect(out.enforcement.filesystem.writeRoots).toContain(work)
  })

  it("a report written to a pipe whose reader is gone is dropped (EPIPE), not an error: the exit status stays the command's", () => {
    // `| true` ends (and closes the pipe's read end) long before the command's sleep is over.
    const script = `"${process.execPath}" "${bin}" run --json -- sh -c 'sleep 0.3; exit 3' | true; echo "status=\${PIPESTATUS[0]}"`
    const r = spawnSync('bash', ['-c', script], { cwd: work, encoding: 'utf8' })
    expect(r.stdout.trim()).toBe('status=3')
    expect(r.stderr).toBe('')
  })

  // A Node parent whose own stdout is a pipe hands the CLI a non-blocking
  // descriptor: a write that meets a full pipe (EAGAIN) goes on through the
  // stream, and every later one must follow it there, in order.
  it('output to a non-blocking pipe that fills up arrives whole and in order', () => {
    const io = JSON.stringify(new URL('../../../dist/cli/io.js', import.meta.url).href)
    const writer = `import { processIo } from ${io}; processIo.stdout('A'.repeat(300000) + '\\n'); for (let i = 0; i < 2000; i++) processIo.stdout('line ' + i + '\\n')`
    const harness = [
      'import os, fcntl, subprocess, sys, time',
      'r, w = os.pipe()',
      'fcntl.fcntl(w, fcntl.F_SETFL, fcntl.fcntl(w, fcntl.F_GETFL) | os.O_NONBLOCK)',
      'p = subprocess.Popen([sys.argv[1], "--input-type=module", "-e", sys.argv[2]], stdout=w)',
      'os.close(w)',
      'data = b""',
      'while True:',
      '    time.sleep(0.0005)',
      '    chunk = os.read(r, 4096)',
      '    if not chunk: break',
      '    data += chunk',
      'p.wait()',
      'sys.stdout.write(data.decode())',
    ].join('\n')
    const r = spawnSync('python3', ['-c', harness, process.execPath, writer], { encoding: 'utf8', maxBuffer: 1 << 24, timeout: 60_000 })
    expect(r.stderr).toBe('')
    expect(r.stdout === 'A'.repeat(300000) + '\n' + Array.from({ length: 2000 }, (_, i) => `line ${i}\n`).join('')).toBe(true)
  })

  it("exits with the command's own status", async () => {
    expect((await cordon(['run', '--', 'sh', '-c', 'exit 7'])).code).toBe(7)
  })

  it('exits 128+N when the command is killed by signal N', async () => {
    expect((await cordon(['run', '--', 'sh', '-c', 'kill -9 $$'])).code).toBe(137)
  })

  it('exits 127 for a program that does not exist, with the reason on stderr', async () => {
    const r = await cordon(['run', '--', 'cordon-no-such-program'])
    expect(r.code).toBe(127)
    expect(r.stderr).toContain("step 'execve'")
  })

  // Bad flags are usage errors (64): test/unit/cli/usage.test.ts.
  it('exits 125 with the reason for a bad profile, and runs nothing', async () => {
    const marker = join(work, 'must-not-exist')
    const bad = join(work, 'bad.json')
    writeFileSync(bad, '{"filesystem":{"write":"x"}}')
    for (const args of [
      ['run', '--profile', bad, '--', 'touch', marker],
      ['run', '--profile', 'no-such-profile', '--', 'touch', marker],
    ]) {
      const r = await cordon(args)
      expect(r.code, args.join(' ')).toBe(125)
      expect(r.stderr).toMatch(/^cordon run: \S/)
    }
    const r = await cordon(['run', '--', 'true'])
    expect(r.code).toBe(0)
    expect(await cordon(['run', '--', 'test', '-e', marker]).then((x) => x.code)).toBe(1)
  })

  it('--allow-host reads the profile to add to its allowlist: a profile that cannot be read is a setup failure (125), not a usage error', async () => {
    const r = await cordon(['run', '--profile', join(work, 'no-such-profile.json'), '--allow-host', 'registry.npmjs.org', '--', 'true'])
    expect(r.code).toBe(125)
    expect(r.stderr).toContain('no-such-profile.json')
    expect(r.stderr).not.toContain('usage:')
  })

  it('--network on lets the command open sockets; off refuses them', async () => {
    const probe = ['python3', '-c', 'import socket; socket.socket(); print("socket ok")']
    expect((await cordon(['run', '--network', 'on', '--', ...probe])).stdout).toContain('socket ok')
    const off = await cordon(['run', '--', ...probe])
    expect(off.code).not.toBe(0)
    expect(off.stderr).toContain('Address family not supported')
  })
})

describe('cordon doctor / explain', () => {
  it('doctor --json names every mechanism', async () => {
    const r = await cordon(['doctor', '--json'])
    const report = JSON.parse(r.stdout) as { checks: { mechanism: string }[] }
    expect(report.checks.map((c) => c.mechanism)).toEqual(expect.arrayContaining(['Landlock', 'seccomp', 'user namespaces']))
  })

  it('explain --mode landlock reports what Landlock-only mode lacks, without running anything', async () => {
    const r = await cordon(['explain', '--mode', 'landlock', '--json'])
    const e = JSON.parse(r.stdout) as { mode: string; missing: { protection: string }[] }
    expect(e.mode).toBe('landlock')
    expect(e.missing.map((m) => m.protection)).toContain('protected-paths')
  })
})
