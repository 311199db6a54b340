/**
 * Denial detection with attribution: error lines count only when the path
 * they name is one the attempt's profile denies; network failures only
 * when the network was off; the word "sandbox" is never evidence.
 */
import { chmodSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { SandboxResult } from '../../../../src/index.js'
import { detectDenials } from '../../../../src/orchestrator/index.js'
import { pathsInLine } from '../../../../src/orchestrator/denial/error-lines.js'
import { enforcementFor } from '../fake-sandbox.js'
import { itWhere, unless } from '../../../helpers/requirements.js'
import { removeTempDirs, tempDir } from '../../../helpers/temp.js'

afterAll(removeTempDirs)

const ws = tempDir('den-ws-')
const secret = tempDir('den-secret-')
mkdirSync(join(ws, '.git', 'hooks'), { recursive: true })

function result(stderr: string, over: Partial<SandboxResult> = {}, network: 'on' | 'off' = 'off'): SandboxResult {
  return {
    command: ['x'],
    exitCode: 1,
    signal: null,
    stdout: '',
    stderr,
    outputTruncated: false,
    timedOut: false,
    isCanceled: false,
    durationMs: 1,
    enforcement: enforcementFor({ denyRead: [secret], network }, ws),
    ...over,
  }
}
const detect = (r: SandboxResult, command: string[] = ['x']) => detectDenials({ result: r, cwd: ws, command })

describe('paths in error lines', () => {
  it.each([
    ["touch: cannot touch '/a/b': Permission denied", ['/a/b']],
    ['sh: 1: cannot create /var/tmp/zz: Permission denied', ['/var/tmp/zz']],
    ['mkdir: cannot create directory ‘/opt/foo’: Permission denied', ['/opt/foo']],
    ["Error: EACCES: permission denied, open '/var/tmp/q'", ['/var/tmp/q']],
    ["PermissionError: [Errno 13] Permission denied: '/var/tmp/q'", ['/var/tmp/q']],
    ['cat: /root/.ssh/id_rsa: Permission denied', ['/root/.ssh/id_rsa']],
    ['sh: 1: cannot create out.txt: Permission denied', ['out.txt']],
    ["cp: cannot create regular file '/usr/x': Read-only file system", ['/usr/x']],
    ["cat: can't open '/a/b': Permission denied", ['/a/b']], // busybox: the apostrophe opens no quote
    ['dash: 1: cannot create /tmp/d/f: Directory nonexistent', ['/tmp/d/f']],
  ])('%s', (line, expected) => {
    expect(pathsInLine(line)).toEqual(expected)
  })
})

describe('filesystem denials', () => {
  it('a write outside the write roots is a write denial on that path', () => {
    const d = detect(result("touch: cannot touch '/var/tmp/den-x/f': Permission denied\n"))
    expect(d).toEqual([
      { operation: 'write', rule: 'outside-write-roots', path: '/var/tmp/den-x/f', evidence: { source: 'stderr', text: "touch: cannot touch '/var/tmp/den-x/f': Permission denied", by: 'output' } },
    ])
  })

  it('a relative path resolves against the command directory', () => {
    expect(detect(result('sh: 1: cannot create out.txt: Permission denied'))).toEqual([]) // inside the workspace: not the sandbox
    const d = detect(result('sh: 1: cannot create ../elsewhere.txt: Permission denied'))
    expect(d[0]).toMatchObject({ rule: 'outside-write-roots', path: join(tmpdir(), 'elsewhere.txt') })
  })

  it('the same error inside the write roots is not attributed to the sandbox', () => {
    expect(detect(result(`touch: cannot touch '${ws}/f': Permission denied`))).toEqual([])
  })

  it('a protected path is attributed as protected', () => {
    expect(detect(result(`sh: 1: cannot create ${ws}/.git/hooks/pre-commit: Permission denied`))[0]).toMatchObject({ operation: 'write', rule: 'protected' })
  })

  it('a path inside a denied read is a read denial', () => {
    expect(detect(result(`cat: ${secret}/key: Permission denied`))[0]).toMatchObject({ operation: 'read', rule: 'deny-read', path: join(secret, 'key') })
  })

  it('the word "sandbox" and errors without a denied path are not evidence', () => {
    expect(detect(result('error: blocked by the sandbox: Permission denied\nsandbox violation'))).toEqual([])
    expect(detect(result('', { stdout: 'Operation not permitted by sandbox policy' }))).toEqual([])
  })

  it('success, timeout and abort have no denials', () => {
    const line = "touch: cannot touch '/var/tmp/den-x/f': Permission denied"
    expect(detect(result(line, { exitCode: 0 }))).toEqual([])
    expect(detect(result(line, { timedOut: true, exitCode: null }))).toEqual([])
    expect(detect(result(line, { isCanceled: true, exitCode: null }))).toEqual([])
  })

  // As root, file modes refuse nothing: only an unprivileged run can show this.
  const isRoot = process.getuid?.() === 0
  itWhere(unless(!isRoot, 'the test process is root, and file modes refuse root nothing'), 'a write the host itself refuses (file modes) is not attributed', () => {
    const locked = tempDir('den-locked-')
    chmodSync(locked, 0o555)
    expect(detect(result(`touch: cannot touch '${locked}/f': Permission denied`))).toEqual([])
  })
})

describe('network denials', () => {
  it('EAFNOSUPPORT with the network off names the target', () => {
    const d = detect(result('Error: connect EAFNOSUPPORT 127.0.0.1:18734 - Local (undefined:undefined)'))
    expect(d).toMatchObject([{ operation: 'network', rule: 'network-off', host: '127.0.0.1', port: 18734, protocol: 'http' }])
  })

  it.each([
    "curl: (7) Failed to connect to 127.0.0.1 port 8080 after 0 ms: Couldn't connect to server",
    'curl: (6) Could not resolve host: example.com',
    'Connecting to 127.0.0.1:18734... failed: Address family not supported by protocol.',
    'urllib.error.URLError: <urlopen error [Errno 97] Address family not supported by protocol>',
    "fatal: unable to access 'https://example.com/x.git/': Could not resolve host: example.com",
  ])('%s', (line) => {
    expect(detect(result(line))[0]).toMatchObject({ operation: 'network', rule: 'network-off' })
  })

  it('the URL in the command gives the protocol', () => {
    const d = detect(result('curl: (6) Could not resolve host: example.com'), ['curl', 'https://example.com/x'])
    expect(d[0]).toMatchObject({ host: 'example.com', protocol: 'https' })
  })

  it('with the network on, connection failures are the network’s, not the sandbox’s', () => {
    expect(detect(result("curl: (7) Failed to connect to 127.0.0.1 port 8080 after 0 ms: Couldn't connect to server", {}, 'on'))).toEqual([])
  })
})

describe('syscall denials', () => {
  it('SIGSYS is the seccomp filter', () => {
    expect(detect(result('', { exitCode: null, signal: 'SIGSYS' }))).toMatchObject([{ operation: 'syscall', rule: 'seccomp', evidence: { source: 'signal' } }])
  })

  it('a shell reporting "Bad system call" for its child', () => {
    expect(detect(result('sh: 1: ./probe: Bad system call', { exitCode: 159 }))).toMatchObject([{ operation: 'syscall', rule: 'seccomp' }])
  })
})
