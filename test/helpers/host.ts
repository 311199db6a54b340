/**
 * What this host offers the tests, found once by the vitest globalSetup and
 * handed to every test file (`inject('cordonHost')`): which identities can
 * run, whether a C compiler built the escape probes, and whether namespace
 * mode works for each identity. Each gap carries the reason a test prints
 * when it skips, naming the fix. Nothing here imports vitest's runtime: it
 * runs in the main vitest process.
 */
import { spawn, spawnSync } from 'node:child_process'
import { driverPath, PROBE_USER, testTmp } from './paths.js'
import type { ScratchEnv } from './scratch.js'

/**
 * Host features a fresh machine may lack and CI installs. `CORDON_TEST_REQUIRE`
 * (`all`, or a comma-separated list of these) turns their skips into failures.
 */
export const REQUIREMENTS = {
  namespaces: 'namespace mode (bubblewrap and user namespaces)',
  'probe-user': `a second user (${PROBE_USER}) for the unprivileged-caller pass`,
  compiler: "a C compiler for the tests' C programs (the escape probes, fixtures)",
  wine: "Wine, mingw-w64 and Windows' node.exe for the Windows backend's tests (test/win32)",
} as const

export type Requirement = keyof typeof REQUIREMENTS

/** The requirements CORDON_TEST_REQUIRE names (`all`, or a comma-separated list); an unknown name is an error. */
export function requiredByEnv(raw = process.env.CORDON_TEST_REQUIRE): Set<Requirement> {
  const names = (raw ?? '').split(',').map((s) => s.trim()).filter(Boolean)
  if (names.includes('all')) return new Set(Object.keys(REQUIREMENTS) as Requirement[])
  const unknown = names.filter((n) => !(n in REQUIREMENTS))
  if (unknown.length) throw new Error(`CORDON_TEST_REQUIRE: unknown requirement ${unknown.join(', ')} (known: all, ${Object.keys(REQUIREMENTS).join(', ')})`)
  return new Set(names as Requirement[])
}

/**
 * Why a test cannot run here. `requirement`: the installable feature it
 * lacks; absent when no install helps (the caller's identity, the kernel).
 */
export interface Missing {
  requirement?: Requirement
  reason: string
}

export type IdentityName = 'root' | 'unprivileged'

export interface HostFacts {
  identities: Record<IdentityName, { uid: number; gid: number; missing?: Missing }>
  /** Why the tests' C programs (the escape probes, fixtures) cannot be built here (absent: they can). */
  compiler?: Missing
  /** Why namespace mode cannot be tested for an identity (absent: it can). */
  namespaces: Partial<Record<IdentityName, Missing>>
  /** uid → the environment that keeps its temp files in the run's own root. */
  scratch: Record<string, ScratchEnv>
}

const isRoot = process.getuid?.() === 0

/** Prefix that runs `argv` as the unprivileged probe user (the test process is root). */
export const asProbeUser = (argv: readonly string[]): string[] => [
  'setpriv', `--reuid=${PROBE_USER}`, `--regid=${PROBE_USER}`, '--clear-groups', '--inh-caps=-all', ...argv,
]

const firstLine = (text: string) => text.trim().split('\n')[0] ?? ''

/** The line of a failed Node process's stderr that says what went wrong (not the stack's first frame). */
const errorLine = (text: string) => text.split('\n').find((l) => /\b\w*Error\b|\bE[A-Z]{2,}\b/.test(l))?.trim() ?? firstLine(text)

function lookup(user: string): { uid: number; gid: number } | undefined {
  const uid = spawnSync('id', ['-u', user], { encoding: 'utf8' })
  const gid = spawnSync('id', ['-g', user], { encoding: 'utf8' })
  if (uid.status !== 0 || gid.status !== 0) return undefined
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) }
}

/** The identities before anything is run as them (`probeUserError`: why useradd failed, if it did). */
export function baseIdentities(probeUserError: string | undefined): HostFacts['identities'] {
  const self = { uid: process.getuid!(), gid: process.getgid!() }
  if (!isRoot) {
    const reason = `the test process is not root (uid ${self.uid}): the root-caller pass needs a root test process`
    return { root: { uid: 0, gid: 0, missing: { reason } }, unprivileged: self }
  }
  const probe = lookup(PROBE_USER)
  if (probe) return { root: self, unprivileged: probe }
  const reason = `user ${PROBE_USER} does not exist and could not be created (${probeUserError ?? 'useradd failed'}): create it with useradd --system --no-create-home --shell /usr/sbin/nologin ${PROBE_USER}`
  return { root: self, unprivileged: { uid: -1, gid: -1, missing: { requirement: 'probe-user', reason } } }
}

/** argv that runs as `name` (the test process's own identity needs no prefix). */
export function wrapFor(name: IdentityName): (argv: readonly string[]) => string[] {
  return isRoot && name === 'unprivileged' ? asProbeUser : (argv) => [...argv]
}

interface DoctorCheck {
  mechanism: string
  ok: boolean
  detail: string
}

interface DoctorReport {
  checks: DoctorCheck[]
  modes: { namespaces: boolean }
  namespaces?: { reason: string; fix: string }
}

/** cordon's own doctor(), run through the driver as `name`; a string (why) when it could not run. */
function doctorAs(name: IdentityName, env: ScratchEnv): Promise<DoctorReport | string> {
  const [file, ...args] = wrapFor(name)([process.execPath, driverPath])
  const child = spawn(file!, args, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, stdio: ['pipe', 'pipe', 'pipe'], timeout: 60_000 })
  let out = ''
  let err = ''
  child.stdout.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr.on('data', (d: Buffer) => (err += d.toString()))
  child.stdin.end(JSON.stringify({ doctor: true }))
  return new Promise((resolve) => {
    child.on('error', (e) => resolve(e.message))
    child.on('close', (code, signal) => {
      try {
        resolve((JSON.parse(out.trim().split('\n').pop()!) as { doctor: DoctorReport }).doctor)
      } catch {
        resolve(errorLine(err) || `the driver exited ${code ?? signal} without a report`)
      }
    })
  })
}

/** Host directories namespace mode replaces with a private tmpfs. */
const PRIVATE_IN_NAMESPACES = ['/tmp', '/var/tmp', '/dev/shm']

/** Why namespace mode cannot see the harness's files from this checkout, if it cannot. */
function hiddenCheckout(): string | undefined {
  const hidden = PRIVATE_IN_NAMESPACES.find((d) => testTmp === d || testTmp.startsWith(`${d}/`))
  return (
    hidden &&
    `the checkout (${testTmp}) lies under ${hidden}, which namespace mode replaces with a private tmpfs, so the probes and temp trees would be invisible inside the sandbox: run from a checkout outside ${hidden}`
  )
}

function namespacesFrom(name: IdentityName, report: DoctorReport): Missing | undefined {
  if (report.modes.namespaces) return undefined
  const why = report.namespaces ? `${report.namespaces.reason}. Fix: ${report.namespaces.fix}` : 'doctor() gave no reason'
  return { requirement: 'namespaces', reason: `namespace mode is unavailable to the ${name} caller: ${why}` }
}

/** Why cordon cannot launch anything as this identity: the driver did not run, or doctor() found no addon or launcher. */
function broken(report: DoctorReport | string): string | undefined {
  if (typeof report === 'string') return report
  const check = report.checks.find((c) => !c.ok && (c.mechanism === 'native addon' || c.mechanism === 'launcher'))
  return check && `${check.mechanism}: ${check.detail}`
}

/**
 * Run doctor() as each identity that exists: an unprivileged identity that
 * cannot run cordon from this checkout is marked missing; for the others,
 * whether namespace mode works for them.
 */
export async function probeIdentities(identities: HostFacts['identities'], scratch: Record<string, ScratchEnv>): Promise<Pick<HostFacts, 'identities' | 'namespaces'>> {
  const names = (Object.keys(identities) as IdentityName[]).filter((n) => !identities[n].missing)
  const reports = await Promise.all(names.map((n) => doctorAs(n, scratch[identities[n].uid]!)))
  const out = { identities: { ...identities }, namespaces: {} as HostFacts['namespaces'] }
  const hidden = hiddenCheckout()
  names.forEach((name, i) => {
    const report = reports[i]!
    const why = broken(report)
    if (why && !(isRoot && name === 'unprivileged')) throw new Error(`cordon cannot run as the test process itself: ${why}`)
    if (why) {
      const reason = `${PROBE_USER} cannot run cordon from this checkout (${why}): put the checkout where every user can read it (not under /root or another 0700 directory), as .ci/run does under /var/lib/cordon-ci`
      out.identities[name] = { ...identities[name], missing: { requirement: 'probe-user', reason } }
      return
    }
    const ns = hidden ? { requirement: 'namespaces' as const, reason: hidden } : namespacesFrom(name, report as DoctorReport)
    if (ns) out.namespaces[name] = ns
  })
  for (const name of Object.keys(identities) as IdentityName[]) out.namespaces[name] ??= out.identities[name].missing
  return out
}

/** Why `cc` cannot build C programs here (undefined: it can). Probe sources that do not compile are a failure, not this. */
export function compilerMissing(): Missing | undefined {
  const fix = 'apt-get install build-essential (Debian/Ubuntu) · dnf install gcc glibc-devel (Fedora) · apk add build-base (Alpine)'
  const version = spawnSync('cc', ['--version'], { encoding: 'utf8' })
  if (version.error || version.status !== 0) {
    return { requirement: 'compiler', reason: `no C compiler (cc: ${version.error?.message ?? firstLine(version.stderr)}) to build the tests' C programs (the escape probes, fixtures): ${fix}` }
  }
  const hello = spawnSync('cc', ['-x', 'c', '-o', '/dev/null', '-'], { input: '#include <stdio.h>\nint main(void) { return puts("") < 0; }\n', encoding: 'utf8' })
  if (hello.status !== 0) return { requirement: 'compiler', reason: `cc cannot build a C program here (${firstLine(hello.stderr)}), so the tests' C programs (the escape probes, fixtures) cannot be built: ${fix}` }
  return undefined
}
