/**
 * The caller's terminal (threat-model.md, "The caller's terminal"; issue 12,
 * item 1). A command given the caller's terminal as its stdio can change it
 * for the caller — TCSETS (echo off), TIOCSWINSZ — although setsid() took
 * away the *controlling* terminal. With stdio inherited from a terminal the
 * command gets a PTY of its own instead, and cordon relays.
 *
 * The caller here has a real terminal: a PTY this test's harness (python3's
 * pty module) makes, as the caller's controlling terminal in a session of
 * its own, like a login shell's. The harness types into it, signals the
 * caller, and reads the terminal's settings and size while the caller still
 * runs and after it exited.
 */
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, expect } from 'vitest'
import { describeEscape, Escape } from '../../helpers/escape.js'
import { distIndex, repoRoot } from '../../helpers/paths.js'
import { itWhere, type Missing } from '../../helpers/requirements.js'

const run = promisify(execFile)
/** The system's python3 (CI installs it), not a per-user shim the unprivileged identity cannot run. */
const PYTHON = ['/usr/bin/python3', '/usr/local/bin/python3'].find((p) => existsSync(p))
const noPython: Missing | undefined = PYTHON ? undefined : { reason: 'no /usr/bin/python3 to give the caller a real terminal (its pty module): apt-get install python3' }
const CLI = join(repoRoot, 'bin', 'cordon.js')
/** The caller's window size; the probe tries 7×13. */
const ROWS = 37
const COLS = 101

/**
 * The harness: argv[1] is a JSON spec { rows, cols, argv, env, steps }. It
 * runs argv on a new PTY, as that terminal's controlling process; each step
 * waits for its `after` text in the output, then snapshots the terminal,
 * types `keys`, or sends `signal` to the caller. Prints one JSON line.
 */
const HARNESS = String.raw`
import fcntl, json, os, pty, select, signal, struct, sys, termios, time
spec = json.loads(sys.argv[1])
master, slave = pty.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack('HHHH', spec['rows'], spec['cols'], 0, 0))
initial = termios.tcgetattr(slave)
def state():
    t = termios.tcgetattr(slave)
    rows, cols = struct.unpack('HHHH', fcntl.ioctl(slave, termios.TIOCGWINSZ, bytes(8)))[:2]
    return {'same': t == initial, 'echo': bool(t[3] & termios.ECHO), 'icanon': bool(t[3] & termios.ICANON), 'rows': rows, 'cols': cols}
pid = os.fork()
if pid == 0:
    try:
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
        for fd in (0, 1, 2): os.dup2(slave, fd)
        os.close(master); os.close(slave)
        os.execvpe(spec['argv'][0], spec['argv'], spec['env'])
    finally:
        os._exit(127)
out, pos, snaps, status = b'', 0, [], None
steps = list(spec['steps'])
deadline = time.monotonic() + 20
while time.monotonic() < deadline:
    ready = select.select([master], [], [], 0.05)[0]
    if ready:
        try: out += os.read(master, 65536)
        except OSError: pass
    while steps and steps[0]['after'].encode() in out[pos:]:
        step = steps.pop(0)
        pos = out.index(step['after'].encode(), pos) + len(step['after'])
        time.sleep(0.2)
        if step.get('snap'): snaps.append(state())
        if 'keys' in step: os.write(master, step['keys'].encode())
        if 'signal' in step: os.kill(pid, getattr(signal, step['signal']))
    if status is None:
        done, st = os.waitpid(pid, os.WNOHANG)
        if done: status, deadline = os.waitstatus_to_exitcode(st), min(deadline, time.monotonic() + 1)
    elif not ready:
        break
hung = status is None
if hung:
    os.kill(pid, signal.SIGKILL)
    status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
print(json.dumps({'status': status, 'hung': hung, 'output': out.decode('utf-8', 'replace'), 'snaps': snaps, 'after': state(), 'pending': [s['after'] for s in steps]}))
`

/**
 * A library caller: runs the command with stdio 'inherit' (sandboxed, or a
 * plain spawn with `unconfined`), prints RUN-ENDED and waits for a line, so
 * the harness sees the terminal as the run left it — before Node's own
 * restoring of the terminal at exit could hide a change.
 */
const CALLER = String.raw`
import { spawnSync } from 'node:child_process'
const [dist, options, how, ...command] = process.argv.slice(1)
if (how === 'unconfined') {
  spawnSync(command[0], command.slice(1), { stdio: 'inherit' })
} else {
  const { createSandbox } = await import(dist)
  const sandbox = createSandbox(JSON.parse(options))
  try {
    const r = await sandbox.run(command, { stdin: 'inherit', stdout: 'inherit', stderr: 'inherit' })
    process.stdout.write('EXIT ' + r.exitCode + ' ' + r.signal + '\n')
  } finally {
    sandbox.close()
  }
}
process.stdout.write('RUN-ENDED\n')
process.stdin.once('data', () => process.exit(0)).resume()
`

interface Snapshot {
  same: boolean
  echo: boolean
  icanon: boolean
  rows: number
  cols: number
}
interface Step {
  after: string
  snap?: boolean
  keys?: string
  signal?: string
}
interface Session {
  status: number
  hung: boolean
  output: string
  snaps: Snapshot[]
  after: Snapshot
  pending: string[]
}

const UNCHANGED = { same: true, echo: true, icanon: true, rows: ROWS, cols: COLS }

describeEscape('the caller’s terminal', (identity, mode) => {
  const it = (name: string, fn: () => Promise<void>) => itWhere(noPython, name, fn)
  let e: Escape
  beforeAll(() => {
    e = new Escape(identity, mode, 'terminal')
  })
  afterAll(() => e?.cleanup())

  async function onTerminal(argv: string[], steps: Step[] = []): Promise<Session> {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: e.tree.home, LANG: 'C.UTF-8', ...identity.env }
    const spec = JSON.stringify({ rows: ROWS, cols: COLS, argv, env, steps })
    const [file, ...args] = identity.wrap([PYTHON!, '-c', HARNESS, spec])
    const { stdout } = await run(file!, args, { cwd: e.tree.work, timeout: 30_000 })
    const s = JSON.parse(stdout) as Session
    expect(s.pending, s.output).toEqual([])
    expect(s.hung, s.output).toBe(false)
    return s
  }
  const library = (how: 'confined' | 'unconfined', ...command: string[]) =>
    onTerminal([process.execPath, '--input-type=module', '-e', CALLER, distIndex, JSON.stringify(e.options()), how, ...command], [{ after: 'RUN-ENDED', snap: true, keys: '\n' }])
  const cli = (command: string[], steps: Step[] = []) =>
    onTerminal([process.execPath, CLI, 'run', '--mode', mode, '--compat', 'best-effort', '--cwd', e.tree.work, '--deny-read', e.tree.secretDir, '--', ...command], steps)
  const tamper = () => [e.probe('terminal'), 'tamper']

  it('TCSETS (echo off) and TIOCSWINSZ on fds 0–2 change the caller’s terminal only when unconfined', async () => {
    const confined = await library('confined', ...tamper())
    expect(confined.output).toContain('OK 3') // it changed three terminals: its own
    expect(confined.output).toContain('EXIT 0 null')
    expect(confined.snaps).toEqual([UNCHANGED])
    const plain = await library('unconfined', ...tamper())
    expect(plain.output).toContain('OK 3')
    expect(plain.snaps).toEqual([{ same: false, echo: false, icanon: true, rows: 7, cols: 13 }])
  })

  it('`cordon run` leaves the caller’s terminal as it was', async () => {
    const s = await cli(tamper())
    expect(s.output).toContain('OK 3')
    expect(s.status).toBe(0)
    expect(s.after).toEqual(UNCHANGED)
  })

  it('the command sees a terminal with the caller’s size, leads its session and is the foreground group', async () => {
    const s = await cli([e.probe('terminal'), 'state'])
    expect(s.output).toContain(`tty=012 echo=1 size=${ROWS}x${COLS} sid=1 fg=1`)
  })

  it('^C typed at the caller’s terminal reaches the command, not cordon', async () => {
    const script = 'trap "echo caught-INT; exit 7" INT; echo ready; while :; do sleep 0.1; done'
    const s = await cli(['sh', '-c', script], [{ after: 'ready', snap: true, keys: '\x03' }])
    expect(s.output).toContain('caught-INT')
    expect(s.status).toBe(7)
    expect(s.snaps[0]).toMatchObject({ echo: false, icanon: false }) // raw while the command runs
    expect(s.after).toEqual(UNCHANGED)
  })

  it('a SIGTERM to a caller that does not handle it gives the terminal back before it ends the caller', async () => {
    const s = await onTerminal(
      [process.execPath, '--input-type=module', '-e', CALLER, distIndex, JSON.stringify(e.options()), 'confined', 'sh', '-c', 'echo ready; sleep 30'],
      [{ after: 'ready', snap: true, signal: 'SIGTERM' }],
    )
    expect(s.snaps[0]).toMatchObject({ echo: false, icanon: false })
    expect(s.status).toBe(-15) // killed by the signal, as without cordon
    expect(s.after).toEqual(UNCHANGED)
  })

  it('a SIGTERM to `cordon run` ends the run (torn down) and gives the terminal back', async () => {
    const s = await cli(['sh', '-c', 'echo ready; sleep 30'], [{ after: 'ready', snap: true, signal: 'SIGTERM' }])
    expect(s.snaps[0]).toMatchObject({ echo: false, icanon: false })
    expect([128 + 9, 128 + 15]).toContain(s.status) // the command killed by the tear-down, or the CLI's status for a run canceled on SIGTERM
    expect(s.after).toEqual(UNCHANGED)
  })

  it('every byte of output arrives before the run ends', async () => {
    const s = await cli(['sh', '-c', 'head -c 300000 /dev/zero | tr "\\0" x; echo; echo END'])
    expect(s.output.split('x').length - 1).toBe(300_000)
    expect(s.output).toContain('END')
  })

  it('with stdout redirected, stdin and stderr are the terminal, and typed input still echoes', async () => {
    const pipeline = `'${process.execPath}' '${CLI}' run --mode ${mode} --compat best-effort --cwd '${e.tree.work}' -- sh -c 'echo ask; read x; echo "got $x"; ${e.probe('terminal')} state' | cat`
    const s = await onTerminal(['sh', '-c', pipeline], [{ after: 'ask', keys: 'secret-word\r' }])
    expect(s.output.split('secret-word').length - 1).toBe(2) // its echo (through the PTY), and `got …` (through cat)
    expect(s.output).toContain('got secret-word')
    expect(s.output).toContain(`tty=02 echo=1 size=${ROWS}x${COLS}`)
    expect(s.after).toEqual(UNCHANGED)
  })
  // One run at a time per workspace: concurrent namespace-mode runs in one
  // workspace can fail at launch when another run's placeholders vanish
  // (host churn, issue 12), which is not what these tests are about.
}, { concurrent: false })
